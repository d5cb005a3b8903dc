package results

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCompute(t *testing.T) {
	got := Compute([]float64{4, 1, 3, 2})
	want := Stats{N: 4, Median: 2.5, Min: 1, Max: 4, Mean: 2.5, Stddev: math.Sqrt(5.0 / 3), CV: math.Sqrt(5.0/3) / 2.5 * 100}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Compute([]float64{7}); got != (Stats{N: 1, Median: 7, Min: 7, Max: 7, Mean: 7}) {
		t.Errorf("one value: %+v", got)
	}
	if got := Compute(nil); got != (Stats{}) {
		t.Errorf("none: %+v", got)
	}
}

func TestSummarizeDropsWarmupAndSumsNodes(t *testing.T) {
	s := func(rep int, node, metric string, v float64) Sample {
		return Sample{Test: "randread", Metric: metric, Unit: "u", Repetition: rep, Value: v, Labels: map[string]string{"node": node}}
	}
	samples := []Sample{
		s(0, "a", "read_iops", 1), s(0, "b", "read_iops", 1), // warm-up, dropped
		s(1, "a", "read_iops", 100), s(1, "b", "read_iops", 110),
		s(2, "a", "read_iops", 120), s(2, "b", "read_iops", 100),
		s(1, "a", "read_clat_mean", 10), s(1, "b", "read_clat_mean", 20),
		s(2, "a", "read_clat_mean", 30), s(2, "b", "read_clat_mean", 30),
	}
	got := Summarize(samples, SummarizeOptions{WarmupRepetitions: 1})
	if len(got) != 2 {
		t.Fatalf("%d summaries", len(got))
	}
	if diff := cmp.Diff([]float64{210, 220}, got[0].Values); diff != "" {
		t.Errorf("IOPS summed per repetition (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{15, 30}, got[1].Values); diff != "" {
		t.Errorf("latency averaged per repetition (-want +got):\n%s", diff)
	}
	if got[0].Stats.Median != 215 {
		t.Errorf("median %v", got[0].Stats.Median)
	}
}

func TestSummarizeGroupsByMessageSize(t *testing.T) {
	var samples []Sample
	for rep := 0; rep < 3; rep++ {
		for _, size := range []string{"8", "1024"} {
			samples = append(samples, Sample{Test: "osu_latency", Metric: "latency", Unit: "us", Repetition: rep,
				Value: float64(rep + len(size)), Labels: map[string]string{LabelMsgSize: size}})
		}
	}
	got := Summarize(samples, SummarizeOptions{GroupBy: []string{LabelMsgSize}})
	if len(got) != 2 || got[0].Labels[LabelMsgSize] != "8" || got[1].Labels[LabelMsgSize] != "1024" {
		t.Fatalf("groups: %+v", got)
	}
	if got[1].Stats.Median != 5 || got[1].Stats.N != 3 {
		t.Errorf("1024: %+v", got[1].Stats)
	}
}
