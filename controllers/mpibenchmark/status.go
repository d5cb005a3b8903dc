package mpibenchmark

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/crdbounds"
	"github.com/benchwright/benchwright/internal/results"
)

// Bounds of status.results, read from the CRD.
var (
	maxResults = crdbounds.MustMaxItems("MPIBenchmark", "status.results")
	maxPoints  = crdbounds.MustMaxItems("MPIBenchmark", "status.results[].points")
)

// statusMetrics are the figures the status keeps per size; the others (min,
// max, percentiles, IOPS) are in the artifact store.
var statusMetrics = map[string]bool{"latency": true, "bandwidth": true, "bibandwidth": true, "message_rate": true}

// syncDisplay derives what `kubectl get` shows from the conditions and counters.
func syncDisplay(b *benchv1.MPIBenchmark) {
	b.Status.ObservedGeneration = b.Generation
	b.Status.Progress = fmt.Sprintf("%d/%d", b.Status.CompletedRepetitions, b.Spec.Repetitions)
	b.Status.Layout = describeLayout(b)
	b.Status.State = benchrun.State(&b.Status.BenchmarkStatusCommon)
}

// statusResults turns summaries into per-test, per-metric figures by size.
// IOR's figures have one size: the transfer size.
func statusResults(b *benchv1.MPIBenchmark, summaries []results.Summary) []benchv1.MPITestResult {
	var out []benchv1.MPITestResult
	index := map[[2]string]int{}
	for _, s := range summaries {
		if !statusMetrics[s.Metric] {
			continue
		}
		key := [2]string{s.Test, s.Metric}
		i, seen := index[key]
		if !seen {
			if len(out) == maxResults {
				continue
			}
			i = len(out)
			index[key] = i
			out = append(out, benchv1.MPITestResult{Test: s.Test, Metric: s.Metric, Unit: s.Unit})
		}
		if len(out[i].Points) == maxPoints {
			continue
		}
		out[i].Points = append(out[i].Points, benchv1.MPIPoint{Size: pointSize(b, s), Stat: benchv1.Stat{
			Median: s.Stats.Median, Min: s.Stats.Min, Max: s.Stats.Max, CV: s.Stats.CV, N: int32(s.Stats.N),
		}})
	}
	for i := range out {
		sort.SliceStable(out[i].Points, func(a, c int) bool { return out[i].Points[a].Size < out[i].Points[c].Size })
	}
	return out
}

// pointSize is the message size of a summary (IOR: the transfer size).
func pointSize(b *benchv1.MPIBenchmark, s results.Summary) int64 {
	if v, err := strconv.ParseInt(s.Labels[results.LabelMsgSize], 10, 64); err == nil {
		return v
	}
	if b.Spec.IOR != nil {
		return byteCount(b.Spec.IOR.TransferSizeOrDefault())
	}
	return 0
}

// summaryOf picks the headline figures: the first latency test's latency at 8
// bytes (or the smallest non-zero size measured) in µs, and the first
// bandwidth test's highest median bandwidth in MB/s. Figures in other units
// are converted (IOR's latency in s, its bandwidth in MiB/s); a unit it does
// not know is left out.
func summaryOf(rs []benchv1.MPITestResult) benchv1.MPISummary {
	var sum benchv1.MPISummary
	for _, r := range rs {
		if f, ok := toMicroseconds[r.Unit]; ok && r.Metric == "latency" && sum.LatencyMicroseconds == nil {
			if p := latencyPoint(r.Points); p != nil {
				sum.LatencyMicroseconds, sum.LatencyMessageSize = ptr.To(thousandths(p.Median*f)), ptr.To(p.Size)
			}
		}
		f, ok := toMBps[r.Unit]
		if ok && (r.Metric == "bandwidth" || r.Metric == "bibandwidth") && sum.PeakBandwidthMBps == nil {
			for _, p := range r.Points {
				if sum.PeakBandwidthMBps == nil || thousandths(p.Median*f) > *sum.PeakBandwidthMBps {
					sum.PeakBandwidthMBps, sum.PeakBandwidthMessageSize = ptr.To(thousandths(p.Median*f)), ptr.To(p.Size)
				}
			}
		}
	}
	return sum
}

// thousandths rounds a headline figure to 0.001 (µs, MB/s): kubectl get
// prints it as stored, and a unit conversion's last bits
// (6019.219999999999) are noise.
func thousandths(v float64) float64 { return math.Round(v*1000) / 1000 }

// Factors from the parsers' units to the summary's µs and MB/s.
var (
	toMicroseconds = map[string]float64{"us": 1, "µs": 1, "s": 1e6}
	toMBps         = map[string]float64{"MB/s": 1, "MiB/s": 1.048576}
)

func latencyPoint(points []benchv1.MPIPoint) *benchv1.MPIPoint {
	var smallest *benchv1.MPIPoint
	for i := range points {
		p := &points[i]
		if p.Size == 8 {
			return p
		}
		if p.Size > 0 && (smallest == nil || p.Size < smallest.Size) {
			smallest = p
		}
	}
	return smallest
}

// byteCount reads IOR's 1m / 16k / 4g notation (powers of 1024).
func byteCount(s string) int64 {
	if s == "" {
		return 0
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'm', 'M':
		mult = 1 << 20
	case 'g', 'G':
		mult = 1 << 30
	case 't', 'T':
		mult = 1 << 40
	}
	digits := s
	if mult > 1 {
		digits = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0
	}
	return n * mult
}
