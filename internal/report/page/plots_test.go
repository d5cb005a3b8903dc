package page

import (
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
)

// kinds lists the kinds and titles of plots.
func kinds(plots []figure.Plot) string {
	var out []string
	for _, p := range plots {
		out = append(out, string(p.Kind)+": "+p.Title)
	}
	return strings.Join(out, "\n")
}

func TestPlotsChosenByTheData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []results.Sample
		want    string
	}{
		{"sized, two repetitions: curves and headline bars, no boxes", mpiSamples(), strings.Join([]string{
			"lines: osu_latency: latency vs message size", "lines: osu_bw: bandwidth vs message size",
			"bars: latency at 8 B per run", "bars: peak bandwidth per run"}, "\n")},
		{"unsized, three repetitions: one figure, a panel per metric, no boxes", storageSamples(), "bars: every figure per test and run"},
		{"one run, one size: no headline bars", []results.Sample{
			sample("a", "m", "osu_bw", "bandwidth", "MB/s", "8", 0, 1)}, "lines: osu_bw: bandwidth vs message size"},
		{"only zero sizes and values: nothing on log axes", []results.Sample{
			sample("a", "m", "osu_bw", "bandwidth", "MB/s", "0", 0, 0)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plots, err := plotsOf(group(t, tc.samples))
			if err != nil {
				t.Fatal(err)
			}
			if got := kinds(plots); got != tc.want {
				t.Errorf("plots:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestPlotsAreDeterministic(t *testing.T) {
	runs := group(t, storageSamples(), mpiSamples())
	a, err := plotsOf(runs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := plotsOf(runs)
	for i := range a {
		if a[i].SVG != b[i].SVG {
			t.Errorf("%s drew differently twice", a[i].Title)
		}
	}
}
