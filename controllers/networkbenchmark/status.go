package networkbenchmark

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/crdbounds"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/results"
)

// maxPairs is the CRD's bound on status.pairs.
var maxPairs = crdbounds.MustMaxItems("NetworkBenchmark", "status.pairs")

// mbpsPerGbps converts iperf3's Gbit/s to MB/s (10^6 bytes/s).
const mbpsPerGbps = 125

// syncDisplay derives what `kubectl get` shows; the conditions stay the
// source of truth.
func syncDisplay(b *benchv1.NetworkBenchmark) {
	b.Status.ObservedGeneration = b.Generation
	b.Status.Progress = fmt.Sprintf("%d/%d", b.Status.CompletedRepetitions, b.Spec.Repetitions)
	b.Status.Tool = describeTool(b)
	b.Status.PairCount = describePairs(b)
	b.Status.State = benchrun.State(&b.Status.BenchmarkStatusCommon)
}

// describeTool is the Tool column: "fabtests/sockets", "iperf3 TCP".
func describeTool(b *benchv1.NetworkBenchmark) string {
	if p := b.Spec.IPerf3; p != nil {
		return "iperf3 " + string(p.Protocol)
	}
	if f := b.Spec.Fabtests; f != nil {
		return "fabtests/" + f.Provider
	}
	return ""
}

// describePairs is the Pairs column: "2 explicit on 1 node", "3 scopes on 5
// nodes", then the measured count once known.
func describePairs(b *benchv1.NetworkBenchmark) string {
	on := " on " + count(int(b.Spec.NodesOrDefault()), "node")
	if n := countPairs(b.Status.Pairs); n > 0 {
		return count(n, "pair") + on
	}
	if n := len(b.Spec.Pairs.Explicit); n > 0 {
		return strconv.Itoa(n) + " explicit" + on
	}
	return strings.Join(scopeNames(b.Spec.Pairs.Scopes), "+") + on
}

// count is "1 pair", "2 pairs".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func countPairs(rs []benchv1.NetworkPairResult) int {
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.Pair] = true
	}
	return len(seen)
}

func scopeNames(ss []benchv1.NetworkScope) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// nodeTopologies are the nodes' topologies in brief, by slot.
func nodeTopologies(reports []*netbench.Report) []benchv1.NodeTopology {
	var out []benchv1.NodeTopology
	for _, r := range reports {
		t := r.Topology
		if t == nil {
			continue
		}
		smt := false
		for _, c := range t.CPUs {
			smt = smt || len(c.Siblings) > 1
		}
		out = append(out, benchv1.NodeTopology{
			Node: truncate(r.Node, 253), CPUs: int32(len(t.CPUs)), Packages: int32(t.Packages()), Chiplets: int32(t.Chiplets()),
			ChipletsFrom: truncate(t.ChipletsFrom, 16), SMT: smt, AllowedCPUs: truncate(r.AllowedCPUs, 256),
		})
	}
	return out
}

// statusPairs are each pair's figures per test, in the order measured: the
// peak over message sizes of the median bandwidth, and a ping-pong's median
// latency at its smallest size; then the headline over all pairs.
func statusPairs(summaries []results.Summary) ([]benchv1.NetworkPairResult, benchv1.NetworkSummary) {
	type key struct{ test, pair string }
	index := map[key]int{}
	var out []benchv1.NetworkPairResult
	sizeOf := map[key]int64{}
	for _, s := range summaries {
		k := key{s.Test, s.Labels[netbench.LabelPair]}
		i, ok := index[k]
		if !ok {
			if len(out) == maxPairs {
				continue
			}
			i = len(out)
			index[k] = i
			// The CRD's bounds, whatever the samples' labels hold.
			out = append(out, benchv1.NetworkPairResult{Pair: truncate(k.pair, 128), Scope: truncate(s.Labels[netbench.LabelScope], 32), Test: truncate(s.Test, 64)})
		}
		size, _ := strconv.ParseInt(s.Labels[results.LabelMsgSize], 10, 64)
		r := &out[i]
		switch {
		case s.Metric == "bandwidth":
			st := stat(s.Stats, factor(s.Unit))
			if r.PeakBandwidth == nil || st.Median > r.PeakBandwidth.Median {
				r.PeakBandwidth = st
				if size > 0 {
					r.PeakMessageSize = &size
				}
			}
		case s.Metric == "latency" && strings.Contains(s.Test, "pingpong"):
			if prev, seen := sizeOf[k]; !seen || size < prev {
				sizeOf[k] = size
				r.Latency = stat(s.Stats, 1)
			}
		}
	}
	var sum benchv1.NetworkSummary
	// Pairs are compared within one test: the first bandwidth test (a
	// ping-pong's bandwidth is another figure), else the first test.
	main := ""
	for _, r := range out {
		if r.PeakBandwidth != nil && (main == "" || strings.Contains(main, "pingpong") && !strings.Contains(r.Test, "pingpong")) {
			main = r.Test
		}
	}
	low := math.Inf(1)
	for _, r := range out {
		if r.PeakBandwidth != nil && r.Test == main {
			m := round(r.PeakBandwidth.Median)
			if sum.PeakBandwidthMBps == nil || m > *sum.PeakBandwidthMBps {
				sum.PeakBandwidthMBps = &m
			}
			if m < low {
				low, sum.LowestBandwidthPair = m, truncate(r.Pair+" "+r.Test, 128)
			}
		}
		if r.Latency != nil && (sum.LatencyMicroseconds == nil || r.Latency.Median < *sum.LatencyMicroseconds) {
			l := round(r.Latency.Median)
			sum.LatencyMicroseconds = &l
		}
	}
	return out, sum
}

// round keeps a headline figure to 3 decimals: `kubectl get` prints it as is.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }

// factor converts a bandwidth unit to MB/s.
func factor(unit string) float64 {
	if unit == "Gbit/s" {
		return mbpsPerGbps
	}
	return 1
}

func stat(s results.Stats, f float64) *benchv1.Stat {
	return &benchv1.Stat{Median: s.Median * f, Min: s.Min * f, Max: s.Max * f, CV: s.CV, N: int32(s.N)}
}

// summaryNote is the figures an event names.
func summaryNote(b *benchv1.NetworkBenchmark) string {
	s := b.Status.Summary
	if s.PeakBandwidthMBps == nil {
		return ""
	}
	note := fmt.Sprintf(": peak %.0f MB/s", *s.PeakBandwidthMBps)
	if s.LowestBandwidthPair != "" {
		note += ", slowest pair " + s.LowestBandwidthPair
	}
	return note + " (medians so far)"
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
