package storagebenchmark

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/wrappers"
)

// summary is one test's metric with a median of m (min m-1, max m+1).
func summary(test, metric string, m float64) results.Summary {
	return results.Summary{Test: test, Metric: metric, Stats: results.Stats{N: 3, Median: m, Min: m - 1, Max: m + 1, Mean: m, CV: 2.5}}
}

func stat(m float64) *benchv1.Stat {
	return &benchv1.Stat{Median: m, Min: m - 1, Max: m + 1, CV: 2.5, N: 3}
}

func TestStatusResults(t *testing.T) {
	got := statusResults([]results.Summary{
		summary("randread", "read_iops", 1),
		summary("randread", "read_bw", 2),
		summary("randread", "read_clat_mean", 3),
		summary("randread", "read_clat_p50", 4),
		summary("randread", "read_clat_p99", 5),
		summary("randread", "read_clat_p99.9", 6),
		// Not status figures: skipped, and a test with only these gets no entry.
		summary("randread", "read_lat_mean", 7),
		summary("randread", "trim_iops", 8),
		summary("randread", "iops", 9),
		summary("ignored", "read_clat_p95", 10),
		summary("mix", "write_iops", 11),
		summary("mix", "read_iops", 12),
		// A later figure of an earlier test stays with it.
		summary("randread", "write_bw", 13),
	})
	want := []benchv1.StorageTestResult{
		{Test: "randread", Read: &benchv1.DirectionResult{
			IOPS: stat(1), BandwidthMiBps: stat(2), LatencyMeanMicroseconds: stat(3),
			LatencyP50Microseconds: stat(4), LatencyP99Microseconds: stat(5), LatencyP999Microseconds: stat(6),
		}, Write: &benchv1.DirectionResult{BandwidthMiBps: stat(13)}},
		{Test: "mix", Read: &benchv1.DirectionResult{IOPS: stat(12)}, Write: &benchv1.DirectionResult{IOPS: stat(11)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statusResults (-want +got):\n%s", diff)
	}
}

func TestStatusResultsCapped(t *testing.T) {
	var in []results.Summary
	for i := range 100 {
		in = append(in, summary(fmt.Sprintf("t%d", i), "read_iops", float64(i)))
	}
	in = append(in, summary("t0", "write_iops", 1000))
	got := statusResults(in)
	if len(got) != maxResults {
		t.Fatalf("%d results, want %d", len(got), maxResults)
	}
	if last := got[maxResults-1]; last.Test != "t95" || last.Read.IOPS.Median != 95 {
		t.Errorf("last result = %s %v, want t95 with median 95", last.Test, last.Read.IOPS)
	}
	if w := got[0].Write; w == nil || w.IOPS.Median != 1000 {
		t.Errorf("t0 write = %v, want the figure that came after the cap", w)
	}
}

func TestHeadline(t *testing.T) {
	fioJobs := func(jobs ...benchv1.FioJob) *wrappers.StorageBenchmarkWrapper { return dbBench().FioJobs(jobs...) }
	job := func(name, bs string, mix *int32) benchv1.FioJob {
		return benchv1.FioJob{Name: name, RW: "randrw", BlockSize: bs, RWMixRead: mix}
	}
	both := func(test string, r, w float64) benchv1.StorageTestResult {
		return benchv1.StorageTestResult{Test: test,
			Read:  &benchv1.DirectionResult{IOPS: stat(r), BandwidthMiBps: stat(r / 100)},
			Write: &benchv1.DirectionResult{IOPS: stat(w), BandwidthMiBps: stat(w / 100)},
		}
	}
	long := strings.Repeat("x", 54) // "412k IOPS " + 54 = 64
	for _, tc := range []struct {
		name  string
		bench *wrappers.StorageBenchmarkWrapper
		rs    []benchv1.StorageTestResult
		want  string
	}{
		{"no results", fioJobs(job("a", "4k", nil)), nil, ""},
		{"small blocks: IOPS of the first test", fioJobs(job("a", "4k", nil), job("b", "1M", nil)),
			[]benchv1.StorageTestResult{both("a", 412345, 1), both("b", 1, 1)}, "412k IOPS a"},
		{"64k is still small", fioJobs(job("a", "64k", nil)), []benchv1.StorageTestResult{both("a", 5000, 1)}, "5.0k IOPS a"},
		{"128k is large: MiB/s", fioJobs(job("a", "128k", nil)), []benchv1.StorageTestResult{both("a", 123456, 1)}, "1235 MiB/s a"},
		{"1M", fioJobs(job("a", "1M", nil)), []benchv1.StorageTestResult{both("a", 200000, 1)}, "2000 MiB/s a"},
		{"rwMixRead 25: write side", fioJobs(job("a", "4k", ptr.To[int32](25))),
			[]benchv1.StorageTestResult{both("a", 100000, 30000)}, "30k IOPS a"},
		{"rwMixRead 50: read side", fioJobs(job("a", "4k", ptr.To[int32](50))),
			[]benchv1.StorageTestResult{both("a", 100000, 30000)}, "100k IOPS a"},
		{"write-only test", fioJobs(job("a", "4k", nil)), []benchv1.StorageTestResult{
			{Test: "a", Write: &benchv1.DirectionResult{IOPS: stat(1234567)}}}, "1.23M IOPS a"},
		{"preset", dbBench().Fio(benchv1.FioSpec{Preset: benchv1.FioPresetGCEPD}),
			[]benchv1.StorageTestResult{both("randread-4k-qd256", 60000, 0)}, "60k IOPS randread-4k-qd256"},
		{"dd is MiB/s", dbBench().DD(benchv1.DDTest{Name: "w", Operation: benchv1.DDWrite, Count: 1}),
			[]benchv1.StorageTestResult{{Test: "w", Write: &benchv1.DirectionResult{IOPS: stat(9), BandwidthMiBps: stat(553.6)}}}, "554 MiB/s w"},
		{"small blocks without IOPS fall back to MiB/s", fioJobs(job("a", "4k", nil)), []benchv1.StorageTestResult{
			{Test: "a", Read: &benchv1.DirectionResult{BandwidthMiBps: stat(80)}}}, "80 MiB/s a"},
		{"neither figure", fioJobs(job("a", "4k", nil)), []benchv1.StorageTestResult{
			{Test: "a", Read: &benchv1.DirectionResult{LatencyP99Microseconds: stat(80)}}}, ""},
		{"name fits in 64", fioJobs(job(long, "4k", nil)), []benchv1.StorageTestResult{both(long, 412345, 1)}, "412k IOPS " + long},
		{"name too long is left out", fioJobs(job(long+"y", "4k", nil)), []benchv1.StorageTestResult{both(long+"y", 412345, 1)}, "412k IOPS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := headline(tc.bench.Obj(), tc.rs); got != tc.want {
				t.Errorf("headline = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1.0k"}, {1234, "1.2k"}, {9949, "9.9k"},
		{12345, "12k"}, {412345, "412k"}, {999499, "999k"}, {1e6, "1.00M"}, {1234567, "1.23M"},
	} {
		if got := compact(tc.v); got != tc.want {
			t.Errorf("compact(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestCompactRoundsIntoNextUnit(t *testing.T) {
	for v, want := range map[float64]string{999999: "1.00M", 9999.96: "10k"} {
		if got := compact(v); got != want {
			t.Errorf("compact(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestByteCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"", 0}, {"512", 512}, {"4k", 4096}, {"4K", 4096}, {"128k", 128 << 10},
		{"1M", 1 << 20}, {"1m", 1 << 20}, {"2G", 2 << 30}, {"k", 0}, {"abc", 0}, {"1T", 0},
	} {
		if got := byteCount(tc.in); got != tc.want {
			t.Errorf("byteCount(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestDescribeVolumes(t *testing.T) {
	longClass := strings.Repeat("c", 200)
	for _, tc := range []struct {
		name  string
		bench *wrappers.StorageBenchmarkWrapper
		want  string
	}{
		{"claims", dbBench(), "2x100Gi premium-rwo"},
		{"block claims", dbBench().Block(), "2x100Gi premium-rwo Block"},
		{"default class and count", dbBench().Claims(0, "500Gi", ""), "1x500Gi"},
		{"emptyDir in memory", emptyDirBench(), "emptyDir Memory"},
		{"emptyDir on disk", dbBench().EmptyDir("", ""), "emptyDir"},
		{"hostPath", hostPathBench(), "2x hostPath"},
		{"none", dbBench().Volumes(benchv1.StorageVolumes{}), ""},
		{"cut at 128", dbBench().Claims(2, "100Gi", longClass), ("2x100Gi " + longClass)[:128]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := describeVolumes(tc.bench.Obj()); got != tc.want {
				t.Errorf("describeVolumes = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSyncDisplay(t *testing.T) {
	cond := func(typ string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: reason}
	}
	running := func(s metav1.ConditionStatus, reason string) metav1.Condition {
		return cond(benchv1.ConditionRunning, s, reason)
	}
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  benchv1.BenchmarkState
	}{
		{"new", nil, benchv1.StatePending},
		{"waiting for the pool", []metav1.Condition{running("False", benchv1.ReasonWaitingForPool)}, benchv1.StateWaiting},
		{"waiting for tuning", []metav1.Condition{running("False", benchv1.ReasonWaitingForTuning)}, benchv1.StateWaiting},
		{"queued", []metav1.Condition{running("False", benchv1.ReasonQueued)}, benchv1.StateWaiting},
		{"starting", []metav1.Condition{running("False", benchv1.ReasonStarting)}, benchv1.StatePending},
		{"volumes pending", []metav1.Condition{running("False", benchv1.ReasonVolumesPending)}, benchv1.StatePending},
		{"running", []metav1.Condition{running("True", benchv1.ReasonRunning)}, benchv1.StateRunning},
		{"succeeded", []metav1.Condition{
			running("False", benchv1.ReasonCompleted), cond(benchv1.ConditionSucceeded, "True", benchv1.ReasonCompleted),
		}, benchv1.StateSucceeded},
		{"failed wins", []metav1.Condition{
			running("True", benchv1.ReasonRunning), cond(benchv1.ConditionSucceeded, "True", benchv1.ReasonCompleted),
			cond(benchv1.ConditionFailed, "True", benchv1.ReasonTimeout),
		}, benchv1.StateFailed},
		{"Failed False is not failed", []metav1.Condition{
			running("True", benchv1.ReasonRunning), cond(benchv1.ConditionFailed, "False", benchv1.ReasonRunning),
		}, benchv1.StateRunning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dbBench().Block().Generation(4).CompletedRepetitions(1).Obj()
			b.Status.Conditions = tc.conds
			syncDisplay(b)
			want := benchv1.BenchmarkStatusCommon{
				ObservedGeneration: 4, Conditions: tc.conds, State: tc.want, Progress: "1/3", CompletedRepetitions: 1,
			}
			if diff := cmp.Diff(want, b.Status.BenchmarkStatusCommon); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if b.Status.Volumes != "2x100Gi premium-rwo Block" {
				t.Errorf("volumes = %q", b.Status.Volumes)
			}
		})
	}
}
