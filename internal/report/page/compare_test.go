package page

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

func TestCompareSpeedupDirection(t *testing.T) {
	runs := group(t, storageSamples(), mpiSamples())
	rows, err := compare.Compare(runs, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	iops := row(t, rows, "randread-4k", "read_iops", "")
	if !near(iops.Speedups[1], 2.6) || iops.LowerIsBetter {
		t.Errorf("IOPS speedup %v (lower is better: %v), want 2.6 = value/baseline", iops.Speedups[1], iops.LowerIsBetter)
	}
	lat := row(t, rows, "randread-4k", "read_clat_mean", "")
	if !near(lat.Speedups[1], 2.55) || !lat.LowerIsBetter {
		t.Errorf("latency speedup %v, want 2.55 = baseline/value", lat.Speedups[1])
	}
	if iops.Speedups[0] != 1 || !math.IsNaN(iops.Speedups[2]) || !math.IsNaN(iops.Medians[2]) {
		t.Errorf("baseline's own speedup %v, a run without the figure: %v %v", iops.Speedups[0], iops.Medians[2], iops.Speedups[2])
	}
	for _, r := range rows {
		if strings.HasSuffix(r.Metric, "_runtime") {
			t.Errorf("headline comparison has %s", r.Metric)
		}
	}
	all, _ := compare.Compare(runs, 0, true)
	if len(all) <= len(rows) {
		t.Errorf("all metrics: %d rows, headline: %d", len(all), len(rows))
	}
	if _, err := compare.Compare(runs, len(runs), false); err == nil {
		t.Error("a baseline out of range is accepted")
	}
}

func TestCompareConvertsUnits(t *testing.T) {
	runs := group(t, mpiSamples())
	r := row(t, rows(t, runs), "osu_bw", "bandwidth", "8")
	if r.Unit != "MB/s" || !near(r.Medians[1], 2.01*1.048576) {
		t.Errorf("MiB/s median in %s: %v, want %v", r.Unit, r.Medians[1], 2.01*1.048576)
	}
}

func rows(t *testing.T, runs []compare.Run) []compare.Row {
	t.Helper()
	out, err := compare.Compare(runs, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFormatSpeedup(t *testing.T) {
	for v, want := range map[float64]string{2.6: "2.60x", 1: "1.00x", 75.3: "75.3x", 250: "250x", 0.0133: "0.0133x (75.2x slower)",
		0.5: "0.5x (2.00x slower)", math.NaN(): "-"} {
		if got := formatSpeedup(v); got != want {
			t.Errorf("formatSpeedup(%v) = %q, want %q", v, got, want)
		}
	}
}

// runOf is a run with one figure, its values per repetition.
func runOf(name, test, metric, unit string, values ...float64) compare.Run {
	return compare.Run{Name: name, Repetitions: len(values), Summaries: []results.Summary{
		{Test: test, Metric: metric, Unit: unit, Stats: results.Compute(values), Values: values}}}
}

// The case: "6.70x" between runs whose CVs were 10.9% and 114.8%.
// The U test cannot tell them apart: ~, its p, the ratio's interval
// holding 1x, and the noise mark.
func TestCompareShowsUncertainty(t *testing.T) {
	base := runOf("c2", "randread-4k", "read_iops", "IOPS", 10, 11, 12, 13.4, 9.2)
	noisy := runOf("c3", "randread-4k", "read_iops", "IOPS", 2, 80, 67, 1, 150, 5, 90)
	rows, err := compare.With([]compare.Run{base, noisy}, 0, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if base.Summaries[0].Stats.CV < 10 || noisy.Summaries[0].Stats.CV < 100 {
		t.Fatalf("CVs %v and %v, want about 11%% and over 100%%", base.Summaries[0].Stats.CV, noisy.Summaries[0].Stats.CV)
	}
	if v := r.Verdicts[1]; !near(r.Speedups[1], 67/11.0) || !v.Interval.Contains(1) || !r.Undecided(1) || !r.Noisy[1] {
		t.Errorf("ratio %v, verdict %+v, noisy %v; want 6.09x, undecided with an interval holding 1, noisy", r.Speedups[1], v, r.Noisy[1])
	}
	var text strings.Builder
	if err := WriteCompareText(&text, []compare.Run{base, noisy}, 0, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"6.09x [", "] ~ p=", " !", "Mann-Whitney U test", "Benjamini-Hochberg", "table's 1 comparisons"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	// A steady difference, 5 vs 5 apart: decided, with its interval, unmarked.
	steady := runOf("c3", "randread-4k", "read_iops", "IOPS", 28, 29, 30, 29.5, 28.5)
	rows, _ = compare.With([]compare.Run{runOf("c2", "randread-4k", "read_iops", "IOPS", 10, 10.5, 11, 10.2, 10.8), steady}, 0, compare.Options{})
	if r, cell := rows[0], ratioCell(rows[0], 1); r.Undecided(1) || r.Noisy[1] || r.Verdicts[1].Interval.Contains(1) || !r.Verdicts[1].Interval.Known() ||
		!strings.HasSuffix(cell, "] p=0.0079") {
		t.Errorf("steady: %q, verdict %+v, noisy %v", cell, r.Verdicts[1], r.Noisy[1])
	}
	// One repetition: no interval, not decided.
	rows, _ = compare.With([]compare.Run{runOf("a", "randread-4k", "read_iops", "IOPS", 10), steady}, 0, compare.Options{})
	if rows[0].Verdicts[1].Interval.Known() || !rows[0].Undecided(1) {
		t.Errorf("one repetition: verdict %+v", rows[0].Verdicts[1])
	}
}

// The identical machines: 3 vs 3 repetitions 9 % apart, which a
// bootstrap of the median called clear. The U test can never decide 3 vs 3:
// ~, p=0.10, no interval, and how many repetitions would decide.
func TestCompareThreeRepetitionsUndecided(t *testing.T) {
	base := runOf("n2d-none", "randwrite", "write_iops", "IOPS", 1000, 1010, 1020)
	run := runOf("n2d-rmem", "randwrite", "write_iops", "IOPS", 1090, 1100, 1280)
	rows, err := compare.With([]compare.Run{base, run}, 0, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if cell := ratioCell(r, 1); !r.Undecided(1) || r.Verdicts[1].Interval.Known() || !strings.HasPrefix(cell, "1.09x ~ p=0.10; ") ||
		!strings.HasSuffix(cell, " a side would decide") {
		t.Errorf("3 vs 3: %q, verdict %+v; want 1.09x ~ p=0.10 and the repetitions that would decide", cell, r.Verdicts[1])
	}
}

// Twenty figures tested at once: one at p=0.0079 alone is decided, but not
// after the false discovery control over the table's 20.
func TestCompareControlsFalseDiscoveries(t *testing.T) {
	var base, run compare.Run
	base.Name, run.Name = "a", "b"
	for i := range 20 {
		bv, rv := []float64{10, 11, 12, 13, 14}, []float64{10.5, 11.5, 12.5, 13.5, 14.5}
		if i == 0 {
			rv = []float64{20, 21, 22, 23, 24}
		}
		test := "t" + strconv.Itoa(i)
		base.Summaries = append(base.Summaries, results.Summary{Test: test, Metric: "read_iops", Unit: "IOPS", Stats: results.Compute(bv), Values: bv})
		run.Summaries = append(run.Summaries, results.Summary{Test: test, Metric: "read_iops", Unit: "IOPS", Stats: results.Compute(rv), Values: rv})
	}
	rows, err := compare.With([]compare.Run{base, run}, 0, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := rows[0].Verdicts[1]
	if v.Family != 20 || v.Decided || !near(v.P, 2/252.0) || !near(v.AdjustedP, 20*2/252.0) {
		t.Errorf("verdict %+v; want p=0.0079 adjusted over 20 to 0.16, not decided", v)
	}
	if cell := ratioCell(rows[0], 1); !strings.Contains(cell, "~ p=0.0079 (0.16 adj.)") {
		t.Errorf("cell %q lacks the adjusted p", cell)
	}
	if compare.Family(rows) != 20 {
		t.Errorf("family %d, want 20", compare.Family(rows))
	}
}

// The seed reads latency as off-node / on-node = 70-80x: RatioValue divides
// as measured, and a larger latency is still worse.
func TestCompareRatioValue(t *testing.T) {
	on := runOf("on-node", "osu_latency", "latency", "us", 0.25, 0.26, 0.25)
	off := runOf("off-node", "osu_latency", "latency", "us", 19.1, 19.0, 19.3)
	rows, err := compare.With([]compare.Run{on, off}, 0, compare.Options{Ratio: compare.RatioValue})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if !near(r.Speedups[1], 19.1/0.25) || !r.Undecided(1) {
		t.Errorf("value ratio %v, verdict %+v; want 76.4x, undecided at 3 vs 3", r.Speedups[1], r.Verdicts[1])
	}
	if better, known := r.Better(1); better || !known {
		t.Errorf("a 76x larger latency is better: %v %v", better, known)
	}
	var md strings.Builder
	if err := WriteCompareMarkdown(&md, []compare.Run{on, off}, 0, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "off-node / on-node") || !strings.Contains(md.String(), "76.4x ~ p=0.10") || !strings.Contains(md.String(), "Ratio = value/baseline") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if _, err := compare.With([]compare.Run{on, off}, 0, compare.Options{Ratio: "inverse"}); err == nil {
		t.Error("an unknown ratio is accepted")
	}
}
