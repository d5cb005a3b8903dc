package mpibenchmark

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/internal/results"
)

// summary is one figure over repetitions at a message size ("" for none).
func summary(test, metric, unit, size string, median float64) results.Summary {
	s := results.Summary{Test: test, Metric: metric, Unit: unit,
		Stats: results.Stats{N: 3, Median: median, Min: median - 1, Max: median + 1, Mean: median, Stddev: 1, CV: 100 / median}}
	if size != "" {
		s.Labels = map[string]string{results.LabelMsgSize: size}
	}
	return s
}

// point is the status figure of summary(…, size, median).
func point(size int64, median float64) benchv1.MPIPoint {
	return benchv1.MPIPoint{Size: size, Stat: benchv1.Stat{Median: median, Min: median - 1, Max: median + 1, CV: 100 / median, N: 3}}
}

func TestStatusResults(t *testing.T) {
	tests := []struct {
		name      string
		bench     *benchv1.MPIBenchmark
		summaries []results.Summary
		want      []benchv1.MPITestResult
	}{
		{
			name:  "nothing measured",
			bench: latBench().Obj(),
		},
		{
			name:  "one OSU test, points sorted by size",
			bench: latBench().Obj(),
			summaries: []results.Summary{
				summary("osu_latency", "latency", "us", "1024", 4),
				summary("osu_latency", "latency", "us", "0", 2),
				summary("osu_latency", "latency", "us", "8", 3),
			},
			want: []benchv1.MPITestResult{{Test: "osu_latency", Metric: "latency", Unit: "us",
				Points: []benchv1.MPIPoint{point(0, 2), point(8, 3), point(1024, 4)}}},
		},
		{
			name:  "only latency, bandwidth, bibandwidth and message_rate",
			bench: latBench().Obj(),
			summaries: []results.Summary{
				summary("osu_allreduce", "latency_min", "us", "4", 10),
				summary("osu_allreduce", "latency", "us", "4", 12),
				summary("osu_allreduce", "latency_max", "us", "4", 14),
				summary("osu_bw", "bandwidth_p99", "MB/s", "4", 10),
				summary("osu_bw", "bandwidth", "MB/s", "4", 20),
				summary("osu_bibw", "bibandwidth", "MB/s", "4", 40),
				summary("osu_mbw_mr", "message_rate", "messages/s", "4", 5e6),
				summary("osu_ibarrier", "overlap", "%", "", 50),
			},
			want: []benchv1.MPITestResult{
				{Test: "osu_allreduce", Metric: "latency", Unit: "us", Points: []benchv1.MPIPoint{point(4, 12)}},
				{Test: "osu_bw", Metric: "bandwidth", Unit: "MB/s", Points: []benchv1.MPIPoint{point(4, 20)}},
				{Test: "osu_bibw", Metric: "bibandwidth", Unit: "MB/s", Points: []benchv1.MPIPoint{point(4, 40)}},
				{Test: "osu_mbw_mr", Metric: "message_rate", Unit: "messages/s", Points: []benchv1.MPIPoint{point(4, 5e6)}},
			},
		},
		{
			name:  "IMB PingPong: one result per test and metric, in order of appearance",
			bench: latBench().Suite(benchv1.SuiteIMB).Tests("PingPong", "PingPing").Obj(),
			summaries: []results.Summary{
				summary("PingPong", "latency", "us", "0", 1.5),
				summary("PingPong", "bandwidth", "MB/s", "0", 0.5),
				summary("PingPing", "latency", "us", "0", 1.7),
				summary("PingPong", "latency", "us", "4", 1.6),
				summary("PingPong", "bandwidth", "MB/s", "4", 2.5),
			},
			want: []benchv1.MPITestResult{
				{Test: "PingPong", Metric: "latency", Unit: "us", Points: []benchv1.MPIPoint{point(0, 1.5), point(4, 1.6)}},
				{Test: "PingPong", Metric: "bandwidth", Unit: "MB/s", Points: []benchv1.MPIPoint{point(0, 0.5), point(4, 2.5)}},
				{Test: "PingPing", Metric: "latency", Unit: "us", Points: []benchv1.MPIPoint{point(0, 1.7)}},
			},
		},
		{
			name:  "a barrier has no message size",
			bench: latBench().Tests("osu_barrier").Obj(),
			summaries: []results.Summary{
				summary("osu_barrier", "latency", "us", "", 7),
			},
			want: []benchv1.MPITestResult{{Test: "osu_barrier", Metric: "latency", Unit: "us", Points: []benchv1.MPIPoint{point(0, 7)}}},
		},
		{
			name:  "IOR: the size is the transfer size in bytes",
			bench: iorBench(benchv1.IORSettings{TransferSize: "4m", BlockSize: "16m"}).Obj(),
			summaries: []results.Summary{
				summary("write", "bandwidth", "MiB/s", "", 900),
				summary("write", "iops", "ops/s", "", 225),
				summary("read", "bandwidth", "MiB/s", "", 1200),
			},
			want: []benchv1.MPITestResult{
				{Test: "write", Metric: "bandwidth", Unit: "MiB/s", Points: []benchv1.MPIPoint{point(4<<20, 900)}},
				{Test: "read", Metric: "bandwidth", Unit: "MiB/s", Points: []benchv1.MPIPoint{point(4<<20, 1200)}},
			},
		},
		{
			name:  "IOR transfer size in KiB",
			bench: iorBench(benchv1.IORSettings{TransferSize: "16k"}).Obj(),
			summaries: []results.Summary{
				summary("write", "bandwidth", "MiB/s", "", 300),
			},
			want: []benchv1.MPITestResult{{Test: "write", Metric: "bandwidth", Unit: "MiB/s", Points: []benchv1.MPIPoint{point(16384, 300)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := statusResults(tt.bench, tt.summaries)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statusResults (-want +got):\n%s", diff)
			}
		})
	}
}

// The CRD allows 48 results and 40 points each: later ones are left out.
func TestStatusResultsCaps(t *testing.T) {
	t.Run("48 results", func(t *testing.T) {
		var in []results.Summary
		var want []string
		for i := range 50 {
			test := fmt.Sprintf("t%02d", i)
			in = append(in, summary(test, "latency", "us", "8", float64(i+1)))
			if i < 48 {
				want = append(want, test)
			}
		}
		// A later point of a kept result is still added.
		in = append(in, summary("t00", "latency", "us", "16", 5))
		got := statusResults(latBench().Obj(), in)
		var tests []string
		for _, r := range got {
			tests = append(tests, r.Test)
		}
		if diff := cmp.Diff(want, tests); diff != "" {
			t.Errorf("tests of the results (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]benchv1.MPIPoint{point(8, 1), point(16, 5)}, got[0].Points); diff != "" {
			t.Errorf("points of t00 (-want +got):\n%s", diff)
		}
	})
	t.Run("40 points, the first 40 given, sorted", func(t *testing.T) {
		var in []results.Summary
		var want []benchv1.MPIPoint
		// Sizes 45, 44, ... 1: the 40 kept are 45..6, reported ascending.
		for size := 45; size >= 1; size-- {
			in = append(in, summary("osu_latency", "latency", "us", strconv.Itoa(size), float64(size)))
		}
		for size := 6; size <= 45; size++ {
			want = append(want, point(int64(size), float64(size)))
		}
		got := statusResults(latBench().Obj(), in)
		if len(got) != 1 {
			t.Fatalf("got %d results, want 1", len(got))
		}
		if diff := cmp.Diff(want, got[0].Points); diff != "" {
			t.Errorf("points (-want +got):\n%s", diff)
		}
	})
}

func TestSummaryOf(t *testing.T) {
	lat := func(test string, points ...benchv1.MPIPoint) benchv1.MPITestResult {
		return benchv1.MPITestResult{Test: test, Metric: "latency", Unit: "us", Points: points}
	}
	bw := func(test, metric, unit string, points ...benchv1.MPIPoint) benchv1.MPITestResult {
		return benchv1.MPITestResult{Test: test, Metric: metric, Unit: unit, Points: points}
	}
	tests := []struct {
		name string
		in   []benchv1.MPITestResult
		want benchv1.MPISummary
	}{
		{name: "nothing"},
		{
			name: "latency at 8 bytes when measured",
			in:   []benchv1.MPITestResult{lat("osu_latency", point(0, 1.9), point(1, 2.0), point(8, 2.1), point(16, 2.2))},
			want: benchv1.MPISummary{LatencyMicroseconds: ptr.To(2.1), LatencyMessageSize: ptr.To[int64](8)},
		},
		{
			name: "else at the smallest non-zero size",
			in:   []benchv1.MPITestResult{lat("osu_allreduce", point(0, 9), point(4, 11.69), point(16, 12))},
			want: benchv1.MPISummary{LatencyMicroseconds: ptr.To(11.69), LatencyMessageSize: ptr.To[int64](4)},
		},
		{
			name: "smallest non-zero size wherever it is in the list",
			in:   []benchv1.MPITestResult{lat("osu_allreduce", point(1024, 30), point(64, 20), point(4096, 40))},
			want: benchv1.MPISummary{LatencyMicroseconds: ptr.To(20.0), LatencyMessageSize: ptr.To[int64](64)},
		},
		{
			name: "the first latency test with a non-zero size",
			in: []benchv1.MPITestResult{
				lat("osu_barrier", point(0, 7)),
				lat("osu_latency", point(8, 2.1)),
				lat("osu_allreduce", point(8, 5)),
			},
			want: benchv1.MPISummary{LatencyMicroseconds: ptr.To(2.1), LatencyMessageSize: ptr.To[int64](8)},
		},
		{
			name: "peak: the highest median of the first bandwidth test",
			in: []benchv1.MPITestResult{
				bw("osu_bw", "bandwidth", "MB/s", point(1, 3.88), point(2048, 5895.08), point(1048576, 12100), point(4194304, 12019.84)),
				bw("osu_bibw", "bibandwidth", "MB/s", point(4194304, 24000)),
			},
			want: benchv1.MPISummary{PeakBandwidthMBps: ptr.To(12100.0), PeakBandwidthMessageSize: ptr.To[int64](1048576)},
		},
		{
			name: "bibandwidth counts as bandwidth",
			in:   []benchv1.MPITestResult{bw("osu_bibw", "bibandwidth", "MB/s", point(1, 1.52), point(4194304, 18666.02))},
			want: benchv1.MPISummary{PeakBandwidthMBps: ptr.To(18666.02), PeakBandwidthMessageSize: ptr.To[int64](4194304)},
		},
		{
			// kubectl get prints the figure as stored.
			name: "rounded to 0.001",
			in:   []benchv1.MPITestResult{bw("osu_bw", "bandwidth", "MB/s", point(4194304, 6019.219999999999))},
			want: benchv1.MPISummary{PeakBandwidthMBps: ptr.To(6019.22), PeakBandwidthMessageSize: ptr.To[int64](4194304)},
		},
		{
			name: "a tie keeps the smaller size",
			in:   []benchv1.MPITestResult{bw("osu_bw", "bandwidth", "MB/s", point(65536, 100), point(131072, 100))},
			want: benchv1.MPISummary{PeakBandwidthMBps: ptr.To(100.0), PeakBandwidthMessageSize: ptr.To[int64](65536)},
		},
		{
			// IOR: bandwidth in MiB/s, latency in s, as the real IOR 4.0.0 printed them.
			name: "IOR's figures converted to MB/s and µs",
			in: []benchv1.MPITestResult{
				{Test: "write", Metric: "latency", Unit: "s", Points: []benchv1.MPIPoint{point(1<<20, 0.0009715)}},
				bw("write", "bandwidth", "MiB/s", point(1<<20, 900)),
			},
			want: benchv1.MPISummary{
				LatencyMicroseconds: ptr.To(971.5), LatencyMessageSize: ptr.To[int64](1 << 20),
				PeakBandwidthMBps: ptr.To(943.718), PeakBandwidthMessageSize: ptr.To[int64](1 << 20),
			},
		},
		{
			name: "a unit it does not know gives no figure",
			in: []benchv1.MPITestResult{
				{Test: "x", Metric: "latency", Unit: "cycles", Points: []benchv1.MPIPoint{point(8, 100)}},
				bw("x", "bandwidth", "Gb/s", point(8, 100)),
			},
		},
		{
			name: "message_rate is not bandwidth",
			in:   []benchv1.MPITestResult{bw("osu_mbw_mr", "message_rate", "messages/s", point(1, 5e6))},
		},
		{
			name: "IMB PingPong: latency and bandwidth of one test",
			in: []benchv1.MPITestResult{
				lat("PingPong", point(0, 1.5), point(1, 1.55), point(4, 1.6)),
				bw("PingPong", "bandwidth", "MB/s", point(0, 0), point(1, 0.6), point(4, 2.5)),
			},
			want: benchv1.MPISummary{
				LatencyMicroseconds: ptr.To(1.55), LatencyMessageSize: ptr.To[int64](1),
				PeakBandwidthMBps: ptr.To(2.5), PeakBandwidthMessageSize: ptr.To[int64](4),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summaryOf(tt.in)); diff != "" {
				t.Errorf("summaryOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestByteCount(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"", 0},
		{"0", 0},
		{"4096", 4096},
		{"1k", 1 << 10},
		{"16K", 16 << 10},
		{"1m", 1 << 20},
		{"64M", 64 << 20},
		{"4g", 4 << 30},
		{"2G", 2 << 30},
		{"1t", 1 << 40},
		{"3T", 3 << 40},
		{"m", 0},
		{"1.5m", 0},
		{"1x", 0},
		{"1mb", 0},
		{"abc", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := byteCount(tt.in); got != tt.want {
				t.Errorf("byteCount(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestSyncDisplay(t *testing.T) {
	b := latBench().Generation(4).CompletedRepetitions(2).Obj()
	conditions.Set(b, benchv1.ConditionRunning, metav1.ConditionTrue, benchv1.ReasonRunning, "repetition 3/3 is running")
	syncDisplay(b)
	got := []any{b.Status.ObservedGeneration, b.Status.Progress, b.Status.Layout, b.Status.State, b.Status.Conditions[0].ObservedGeneration}
	want := []any{int64(4), "2/3", "2x1 core", benchv1.StateRunning, int64(4)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("display fields (-want +got):\n%s", diff)
	}
}

// IOR runs with -t 1m when transferSize is empty (mpi.BuildLaunch), so the
// status should report that size too.
func TestStatusResultsIORDefaultTransferSize(t *testing.T) {
	b := iorBench(benchv1.IORSettings{}).Obj()
	l := mustLaunch(t, b)
	if !slices.Contains(l.Steps[0].Argv, "1m") {
		t.Fatalf("IOR argv %v does not use the 1m default", l.Steps[0].Argv)
	}
	got := statusResults(b, []results.Summary{summary("write", "bandwidth", "MiB/s", "", 900)})
	want := []benchv1.MPITestResult{{Test: "write", Metric: "bandwidth", Unit: "MiB/s", Points: []benchv1.MPIPoint{point(1<<20, 900)}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statusResults (-want +got):\n%s", diff)
	}
}
