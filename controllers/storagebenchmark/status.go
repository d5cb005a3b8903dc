package storagebenchmark

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/crdbounds"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
)

// maxResults is the CRD's bound on status.results.
var maxResults = crdbounds.MustMaxItems("StorageBenchmark", "status.results")

// syncDisplay derives the small facts `kubectl get` shows from the conditions
// and counters; the conditions stay the source of truth.
func syncDisplay(b *benchv1.StorageBenchmark) {
	b.Status.ObservedGeneration = b.Generation
	b.Status.Progress = fmt.Sprintf("%d/%d", b.Status.CompletedRepetitions, b.Spec.Repetitions)
	b.Status.Volumes = describeVolumes(b)
	b.Status.State = benchrun.State(&b.Status.BenchmarkStatusCommon)
}

// describeVolumes is the Volumes column: "10x500Gi premium-rwo", "emptyDir".
func describeVolumes(b *benchv1.StorageBenchmark) string {
	v := b.Spec.Volumes
	var s string
	switch {
	case v.EmptyDir != nil:
		s = "emptyDir"
		if v.EmptyDir.Medium != "" {
			s += " " + string(v.EmptyDir.Medium)
		}
	case v.HostPath != nil:
		s = fmt.Sprintf("%dx hostPath", len(v.HostPath.Paths))
	case v.Size != nil:
		s = fmt.Sprintf("%dx%s", v.CountOrDefault(), v.Size.String())
		if v.StorageClassName != nil {
			s += " " + *v.StorageClassName
		}
		if blockMode(b) {
			s += " Block"
		}
	}
	if len(s) > 128 {
		s = s[:128]
	}
	return s
}

// directionMetrics maps sample metric suffixes to the status figures.
var directionMetrics = map[string]func(*benchv1.DirectionResult) **benchv1.Stat{
	"iops":      func(d *benchv1.DirectionResult) **benchv1.Stat { return &d.IOPS },
	"bw":        func(d *benchv1.DirectionResult) **benchv1.Stat { return &d.BandwidthMiBps },
	"clat_mean": func(d *benchv1.DirectionResult) **benchv1.Stat { return &d.LatencyMeanMicroseconds },
	"clat_p50":  func(d *benchv1.DirectionResult) **benchv1.Stat { return &d.LatencyP50Microseconds },
	"clat_p99":  func(d *benchv1.DirectionResult) **benchv1.Stat { return &d.LatencyP99Microseconds },
	"clat_p99.9": func(d *benchv1.DirectionResult) **benchv1.Stat {
		return &d.LatencyP999Microseconds
	},
}

// statusResults turns summaries into the per-test figures of the status, in
// the order of the tests.
func statusResults(summaries []results.Summary) []benchv1.StorageTestResult {
	var out []benchv1.StorageTestResult
	index := map[string]int{}
	for _, s := range summaries {
		dir, metric, ok := strings.Cut(s.Metric, "_")
		if !ok || (dir != "read" && dir != "write") {
			continue
		}
		field, ok := directionMetrics[metric]
		if !ok {
			continue
		}
		i, seen := index[s.Test]
		if !seen {
			if len(out) == maxResults {
				continue
			}
			i = len(out)
			index[s.Test] = i
			out = append(out, benchv1.StorageTestResult{Test: s.Test})
		}
		d := &out[i].Read
		if dir == "write" {
			d = &out[i].Write
		}
		if *d == nil {
			*d = &benchv1.DirectionResult{}
		}
		*field(*d) = &benchv1.Stat{
			Median: s.Stats.Median, Min: s.Stats.Min, Max: s.Stats.Max, CV: s.Stats.CV, N: int32(s.Stats.N),
		}
	}
	return out
}

// largeBlock is the block size from which a test is about bandwidth, not IOPS.
const largeBlock = 128 << 10

// headline is the Result column: the first test's main figure, its median
// over repetitions — IOPS for small blocks, bandwidth for large blocks and dd.
func headline(b *benchv1.StorageBenchmark, rs []benchv1.StorageTestResult) string {
	if len(rs) == 0 {
		return ""
	}
	first := rs[0]
	job := fioJob(b, first.Test)
	d := first.Read
	if d == nil || (first.Write != nil && writeHeavy(job)) {
		d = first.Write
	}
	if d == nil {
		return ""
	}
	var figure string
	switch {
	case d.IOPS != nil && !bandwidthTest(b, job):
		figure = compact(d.IOPS.Median) + " IOPS"
	case d.BandwidthMiBps != nil:
		figure = strconv.FormatFloat(d.BandwidthMiBps.Median, 'f', 0, 64) + " MiB/s"
	default:
		return ""
	}
	if h := figure + " " + first.Test; len(h) <= 64 {
		return h
	}
	return figure
}

// fioJob is the spec's fio job of a test; nil for a dd test or none.
func fioJob(b *benchv1.StorageBenchmark, test string) *fio.Job {
	jobs, err := fio.Expand(b.Spec.Fio)
	if err != nil {
		return nil
	}
	for _, j := range jobs {
		if j.Name == test {
			return &j
		}
	}
	return nil
}

// bandwidthTest tells whether a test is judged by bandwidth: dd, or fio with
// large blocks.
func bandwidthTest(b *benchv1.StorageBenchmark, job *fio.Job) bool {
	return b.Spec.DD != nil || (job != nil && byteCount(job.BlockSize) >= largeBlock)
}

// writeHeavy tells whether a test mostly writes (its headline is the write side).
func writeHeavy(job *fio.Job) bool {
	return job != nil && job.RWMixRead != nil && *job.RWMixRead < 50
}

// byteCount reads fio's 4k / 1M / 512 notation (powers of 1024).
func byteCount(s string) int64 {
	if s == "" {
		return 0
	}
	mult := int64(1)
	switch strings.ToLower(s[len(s)-1:]) {
	case "k":
		mult = 1 << 10
	case "m":
		mult = 1 << 20
	case "g":
		mult = 1 << 30
	}
	n, err := strconv.ParseInt(strings.TrimRight(s, "kKmMgG"), 10, 64)
	if err != nil {
		return 0
	}
	return n * mult
}

// compact prints 412345 as "412k" and 1234567 as "1.23M", choosing the unit
// after rounding (999999 is "1.00M", not "1000k").
func compact(v float64) string {
	switch r := math.Round(v); {
	case r >= 999_500:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case r >= 9_995:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case r >= 1_000:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
}
