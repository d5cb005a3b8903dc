package interference

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// A sampler's points become the machine's busy cores and the pod's own: on
// 4 cores, 25 % idle, 5 % iowait and 5 % steal leave 65 % busy = 2.6 cores.
func TestSamplesOf(t *testing.T) {
	cores := [][]float64{{}, {}, {}, {}}
	s := sampler.Series{
		Header: sampler.Header{Fields: map[string][]string{"cpu": sampler.CPUFields, "pod": sampler.PodFields}},
		Points: []sampler.Point{
			{T: 1000, Dt: 1, CPU: []float64{50, 0, 15, 5, 0, 0, 5, 25}, Cores: cores, Pod: []float64{250, 10, 3}},
			{T: 2000, Dt: 1, CPU: []float64{50, 0, 15, 5, 0, 0, 5, 25}, Cores: cores},                          // no pod CPU
			{T: 3000, Dt: 0, CPU: []float64{50, 0, 15, 5, 0, 0, 5, 25}, Cores: cores, Pod: []float64{1, 1, 1}}, // no interval
		},
	}
	got := SamplesOf(s)
	want := []Sample{{End: time.UnixMilli(1000).UTC(), Seconds: 1, NodeBusy: 2.6, Own: 2.5}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("SamplesOf (-want +got):\n%s", d)
	}
	s.Header.Fields = map[string][]string{"cpu": sampler.CPUFields}
	if got := SamplesOf(s); got != nil {
		t.Errorf("a series without pod CPU gave %v", got)
	}
}

// Others' share: the machine's busy CPU less the run's own pods on it. Two
// pods of one run on two nodes of one machine both count as its own; a
// process using 0.3 of a core beside them disturbs the repetition, 0.05
// does not.
func TestShares(t *testing.T) {
	steady := func(busy, own float64) []Sample {
		return []Sample{{Seconds: 1, NodeBusy: busy, Own: own}, {Seconds: 3, NodeBusy: busy, Own: own}}
	}
	series := []PodSeries{
		{Rep: Rep{"osu", 0}, Machine: "m1", Pod: "worker-0", Samples: steady(2.3, 1)},
		{Rep: Rep{"osu", 0}, Machine: "m1", Pod: "worker-1", Samples: steady(2.3, 1)},
		{Rep: Rep{"osu", 1}, Machine: "m1", Pod: "worker-0", Samples: steady(2.05, 1)},
		{Rep: Rep{"osu", 1}, Machine: "m1", Pod: "worker-1", Samples: steady(2.05, 1)},
		{Rep: Rep{"fio", 0}, Machine: "m2", Pod: "fio-0", Samples: []Sample{{Seconds: 1, NodeBusy: 0.5, Own: 0.5}, {Seconds: 3, NodeBusy: 0.9, Own: 0.5}}},
		{Rep: Rep{"fio", 0}, Machine: "m2", Pod: "empty"}, // counts for nothing
	}
	got := Shares(series, 0)
	want := []Share{
		{Rep: Rep{"fio", 0}, Machine: "m2", Others: 0.3, Disturbed: true}, // (0.5·1 + 0.9·3)/4 − 0.5
		{Rep: Rep{"osu", 0}, Machine: "m1", Others: 0.3, Disturbed: true},
		{Rep: Rep{"osu", 1}, Machine: "m1", Others: 0.05},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("Shares (-want +got):\n%s", d)
	}
	if got := Shares(series, 0.5); got[0].Disturbed || got[1].Disturbed {
		t.Errorf("threshold 0.5: %+v", got)
	}
	// The own pods' CPU above the machine's (rounding) is no negative share.
	if got := Shares([]PodSeries{{Rep: Rep{"x", 0}, Machine: "m", Samples: steady(1, 1.2)}}, 0); got[0].Others != 0 || math.Signbit(got[0].Others) {
		t.Errorf("others = %v, want 0", got[0].Others)
	}
}

// A stored record counts within its node's window of the repetition, on the
// node's machine.
func TestSeriesOf(t *testing.T) {
	f := &nodefacts.Facts{BootID: "0f3c6a7e-91b2"}
	nodes := []results.NodeInfo{{Hostname: "n1", Facts: f, Windows: []results.Window{{Repetition: 1, Start: at(10), End: at(20)}}}}
	var points []sampler.Point
	for s := 9; s <= 22; s++ {
		points = append(points, sampler.Point{T: at(s).UnixMilli(), Dt: 1, CPU: []float64{100, 0, 0, 0, 0, 0, 0, 0}, Cores: [][]float64{{}}, Pod: []float64{50, 1, 1}})
	}
	rec := sampler.Record{Pod: "fio-0", Node: "n1", Series: sampler.Series{
		Header: sampler.Header{Fields: map[string][]string{"cpu": sampler.CPUFields, "pod": sampler.PodFields}}, Points: points}}
	s, ok := SeriesOf(Rep{"fio", 1}, rec, nodes)
	if !ok || s.Machine != f.Machine() || s.Pod != "fio-0" {
		t.Fatalf("SeriesOf = %+v, %v", s, ok)
	}
	// Intervals ending 11 s to 20 s have their middle in [10 s, 20 s].
	if len(s.Samples) != 10 || !s.Samples[0].End.Equal(at(11)) {
		t.Errorf("%d samples from %v, want 10 from %v", len(s.Samples), s.Samples[0].End, at(11))
	}
	rec.Node = "gone"
	if _, ok := SeriesOf(Rep{"fio", 1}, rec, nodes); ok {
		t.Error("a record of an unknown node gave a series")
	}
}
