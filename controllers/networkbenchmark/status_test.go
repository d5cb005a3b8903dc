package networkbenchmark

import (
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/results"
)

func summary(test, pair, metric, unit, size string, median float64) results.Summary {
	labels := map[string]string{netbench.LabelPair: pair, netbench.LabelScope: "interNode"}
	if size != "" {
		labels[results.LabelMsgSize] = size
	}
	return results.Summary{Test: test, Metric: metric, Unit: unit, Labels: labels, Stats: results.Stats{Median: median, Min: median, Max: median, N: 3}}
}

func TestStatusPairs(t *testing.T) {
	pairs, sum := statusPairs([]results.Summary{
		summary("fi_msg_pingpong", "a", "bandwidth", "MB/s", "64", 10),
		summary("fi_msg_pingpong", "a", "latency", "us", "64", 9),
		summary("fi_msg_pingpong", "a", "latency", "us", "1", 4),
		summary("fi_msg_pingpong", "a", "bandwidth", "MB/s", "65536", 900),
		summary("fi_msg_bw", "a", "latency", "us", "1", 0.5), // usec/xfer of a bandwidth test: not a latency
		summary("iperf3", "b", "bandwidth", "Gbit/s", "", 8),
		summary("fi_msg_bw", "b", "bandwidth", "MB/s", "64", 2000.123456),
		summary("fi_msg_bw", "a", "bandwidth", "MB/s", "64", 3000),
	})
	if len(pairs) != 4 {
		t.Fatalf("pairs %+v", pairs)
	}
	pp, bw, ip := pairs[0], pairs[1], pairs[2]
	if pairs[3].PeakBandwidth.Median != 2000.123456 {
		t.Errorf("the status keeps the figure as measured: %+v", pairs[3].PeakBandwidth)
	}
	if pp.PeakBandwidth.Median != 900 || *pp.PeakMessageSize != 65536 || pp.Latency.Median != 4 {
		t.Errorf("ping-pong %+v", pp)
	}
	if bw.Latency != nil {
		t.Errorf("fi_msg_bw has a latency: %+v", bw.Latency)
	}
	if ip.PeakBandwidth.Median != 1000 || ip.PeakMessageSize != nil {
		t.Errorf("iperf3's 8 Gbit/s should read 1000 MB/s: %+v", ip)
	}
	// The pairs compared are fi_msg_bw's: the first bandwidth test that is
	// not a ping-pong.
	if *sum.PeakBandwidthMBps != 3000 || sum.LowestBandwidthPair != "b fi_msg_bw" || *sum.LatencyMicroseconds != 4 {
		t.Errorf("summary %+v", sum)
	}
}

func TestDescribePairs(t *testing.T) {
	b := seed2(5).Obj()
	if got := describePairs(b); got != "intraSocket+interNode on 5 nodes" {
		t.Errorf("before the run: %q", got)
	}
	b.Status.Pairs = []benchv1.NetworkPairResult{{Pair: "x", Test: "a"}, {Pair: "x", Test: "b"}, {Pair: "y", Test: "a"}}
	if got := describePairs(b); got != "2 pairs on 5 nodes" {
		t.Errorf("after: %q", got)
	}
}
