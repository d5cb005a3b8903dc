package compare

import (
	"math"
	"testing"

	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// Issue 44: the Cells table gave iperf3's peak as "1511 MB/s peak" (its
// status), the comparisons as "12.09 Gbit/s". A report writes iperf3's
// bandwidth in MB/s, as its status does: one unit per metric.
func TestIperf3BandwidthInMBps(t *testing.T) {
	var samples []results.Sample
	for rep, v := range []float64{12.0, 12.09, 12.2} {
		samples = append(samples, results.Sample{RunUID: "u", Kind: "NetworkBenchmark", Benchmark: "tcp", Test: "iperf3",
			Metric: "bandwidth", Unit: "Gbit/s", Value: v, Repetition: rep})
	}
	runs, err := Group([]source.Set{{Origin: "t.ndjson", Samples: samples}})
	if err != nil {
		t.Fatal(err)
	}
	s := runs[0].Summaries[0]
	if s.Unit != "MB/s" || math.Abs(s.Stats.Median-1511.25) > 1e-9 || math.Abs(s.Values[0]-1500) > 1e-9 {
		t.Errorf("iperf3 bandwidth %v %s (values %v), want a median of 1511.25 MB/s", s.Stats.Median, s.Unit, s.Values)
	}
}
