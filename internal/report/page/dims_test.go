package page

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/benchmath"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
)

// campaignRuns is a fluent builder of a campaign's runs: a cell's benchmark
// per call of cell, and the Campaign that places them.
type campaignRuns struct {
	c       compare.Campaign
	samples []results.Sample
}

// newCampaign lists the campaign's pools, tunings and benchmarks, in its
// order.
func newCampaign(pools, tunings, benchmarks []string) *campaignRuns {
	return &campaignRuns{c: compare.Campaign{Dimensions: []compare.Dimension{
		{Name: compare.DimPool, Values: pools}, {Name: compare.DimTuning, Values: tunings}, {Name: compare.DimBenchmark, Values: benchmarks}},
		Places: map[string]map[string]string{}}}
}

// cell adds the run of benchmark bench in the cell pool/tuning on machine:
// figure test/metric in unit at each size ("" for none), with the median
// given, over three repetitions (×0.99, ×1, ×1.01); labels are the node
// settings its samples record.
func (b *campaignRuns) cell(pool, tuning, bench, machine, test, metric, unit string, medians map[string]float64, labels map[string]string) *campaignRuns {
	name := "wf-" + pool + "-" + tuning + "-" + bench
	b.c.Places[name] = map[string]string{compare.DimPool: pool, compare.DimTuning: tuning, compare.DimBenchmark: bench}
	for rep, f := range []float64{0.99, 1, 1.01} {
		for size, v := range medians {
			s := sample(name, machine, test, metric, unit, size, rep, v*f)
			s.Labels[results.LabelPool] = name // the BenchmarkPool's name: no dimension of its own
			for k, v := range labels {
				s.Labels[k] = v
			}
			b.samples = append(b.samples, s)
		}
	}
	return b
}

// runs are the cells' runs in name order, as a store lists them.
func (b *campaignRuns) runs(t *testing.T) ([]compare.Run, *compare.Campaign) {
	t.Helper()
	runs := group(t, b.samples)
	slices.SortFunc(runs, func(x, y compare.Run) int { return strings.Compare(x.Name, y.Name) })
	return runs, &b.c
}

// s0 is seed 000's shape: three pools, one PD and ten ("1pd" listed first,
// though "10pd" sorts first), random-read IOPS; c2's 10pd cell missing when
// failed.
func s0(t *testing.T, failed bool) ([]compare.Run, *compare.Campaign) {
	iops := map[string][2]float64{"c2": {10000, 100000}, "c2d": {15000, 120000}, "c3": {26000, 200000}}
	machine := map[string]string{"c2": "c2-standard-60", "c2d": "c2d-standard-112", "c3": "c3-highcpu-176"}
	b := newCampaign([]string{"c2", "c2d", "c3"}, []string{"none"}, []string{"1pd", "10pd"})
	for _, pool := range []string{"c3", "c2d", "c2"} {
		for i, bench := range []string{"1pd", "10pd"} {
			if failed && pool == "c2" && bench == "10pd" {
				continue
			}
			b.cell(pool, "none", bench, machine[pool], "randread-4k", "read_iops", "IOPS", map[string]float64{"": iops[pool][i]}, nil)
		}
	}
	return b.runs(t)
}

func newReport(t *testing.T, runs []compare.Run, opts Options) (*Report, string) {
	t.Helper()
	rep, err := New(runs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	return rep, md.String()
}

func TestAlongS0PoolsPerBenchmark(t *testing.T) {
	runs, c := s0(t, false)
	rep, md := newReport(t, runs, Options{Campaign: c})
	if rep.Comparison != nil {
		t.Error("a campaign's report keeps the single-baseline comparison")
	}
	var names []string
	for _, r := range rep.Runs {
		names = append(names, r.Name)
	}
	if want := []string{"wf-c2-none-1pd", "wf-c2-none-10pd", "wf-c2d-none-1pd", "wf-c2d-none-10pd", "wf-c3-none-1pd", "wf-c3-none-10pd"}; !slices.Equal(names, want) {
		t.Errorf("runs in order %q, want the campaign's %q", names, want)
	}
	var dims []string
	for _, d := range rep.Dimensions {
		dims = append(dims, d.Name+"="+strings.Join(d.Values, ","))
	}
	// The machine type follows the pool: no dimension of its own.
	if want := []string{"pool=c2,c2d,c3", "tuning=none", "benchmark=1pd,10pd"}; !slices.Equal(dims, want) {
		t.Errorf("dimensions %q, want %q", dims, want)
	}
	pool := alongOf(t, rep, compare.DimPool)
	if got, want := alongTitle(pool), "pool: c2d / c2 and c3 / c2, per benchmark"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if len(pool.Groups) != 2 || !slices.Equal(pool.Groups[0].Key, []string{"1pd"}) {
		t.Fatalf("groups %+v, want 1pd then 10pd", pool.Groups)
	}
	for _, tc := range []struct {
		dim, group, value string
		want              float64
	}{
		{compare.DimPool, "1pd", "c3", 2.6}, // the seed's headline: C3 random read 2.6x C2 on one PD
		{compare.DimPool, "1pd", "c2d", 1.5},
		{compare.DimPool, "10pd", "c3", 2},
		{compare.DimPool, "10pd", "c2", 1},
		{compare.DimBenchmark, "c2", "10pd", 10},
		{compare.DimBenchmark, "c3", "10pd", 200000.0 / 26000},
	} {
		if got := ratioAlong(t, rep, tc.dim, []string{tc.group}, tc.value, "randread-4k", "read_iops", ""); !near(got, tc.want) {
			t.Errorf("%s along %s in %s: %v, want %v", tc.value, tc.dim, tc.group, got, tc.want)
		}
	}
	for _, want := range []string{"## Comparisons by dimension", "### pool: c2d / c2 and c3 / c2, per benchmark", "c3 speedup vs c2", "### benchmark: 10pd / 1pd, per pool"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "## Comparisons by dimension") > strings.Index(md, "## Runs") {
		t.Error("the comparisons by dimension come after the runs")
	}
	var html bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if h := html.String(); !strings.Contains(h, `<h3 class="dim" id="dimension-1">pool: c2d / c2 and c3 / c2, per benchmark</h3>`) ||
		strings.Index(h, `<section id="dimensions">`) > strings.Index(h, `<section id="runs">`) || !strings.Contains(h, `<td class="num unclear">2.60x ~ p=0.10`) {
		t.Errorf("the HTML lacks the comparison along pools before the runs, 2.60x at 3 vs 3 repetitions marked undecided")
	}
	// Another baseline: c3, so c2 is 1/2.6 of it.
	rep, _ = newReport(t, runs, Options{Campaign: c, Baselines: map[string]string{compare.DimPool: "c3"}})
	if got := ratioAlong(t, rep, compare.DimPool, []string{"1pd"}, "c2", "randread-4k", "read_iops", ""); !near(got, 1/2.6) {
		t.Errorf("c2 / c3 on 1pd = %v, want %v", got, 1/2.6)
	}
}

func TestAlongCSV(t *testing.T) {
	runs, c := s0(t, false)
	rep, _ := newReport(t, runs, Options{Campaign: c})
	var buf bytes.Buffer
	if err := rep.CSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(recs[0], name) }
	found := false
	for _, rec := range recs[1:] {
		if rec[col("dimension")] == compare.DimPool && rec[col("group")] == "benchmark=1pd" && rec[col("value")] == "c3" {
			found = true
			if rec[col("ratio")] != "2.6" || rec[col("baseline")] != "wf-c2-none-1pd" || rec[col("run")] != "wf-c3-none-1pd" {
				t.Errorf("c3 on 1pd: %q", rec)
			}
		}
	}
	if !found {
		t.Errorf("no line of pool c3 in group benchmark=1pd:\n%s", buf.String())
	}
	if figures := len(rep.Rows); recs[figures][col("dimension")] != "" || recs[figures+1][col("dimension")] == "" {
		t.Errorf("the figures' lines (%d) are not first, with the comparisons after", figures)
	}
}

// A failed cell takes away its group's ratios, and says so; the other group
// keeps its own.
func TestAlongFailedCell(t *testing.T) {
	runs, c := s0(t, true)
	cells := []compare.Cell{{Pool: "c2", Tuning: "none", Benchmark: "10pd", Name: "wf-c2-none-10pd", State: "Failed"}}
	rep, md := newReport(t, runs, Options{Campaign: c, Cells: cells})
	pool := alongOf(t, rep, compare.DimPool)
	g := groupOf(t, pool, []string{"10pd"})
	if g.Missing != "no c2 cell: failed" {
		t.Errorf("missing %q", g.Missing)
	}
	for _, r := range g.Rows {
		for i, s := range r.Speedups {
			if !math.IsNaN(s) || r.Compared(i) {
				t.Errorf("a ratio without the baseline run: %v %+v", s, r.Verdicts[i])
			}
		}
	}
	if r := row(t, g.Rows, "randread-4k", "read_iops", ""); !near(r.Medians[2], 200000) || !math.IsNaN(r.Medians[0]) {
		t.Errorf("10pd medians %v, want c3's and no c2's", r.Medians)
	}
	if got := ratioAlong(t, rep, compare.DimPool, []string{"1pd"}, "c3", "randread-4k", "read_iops", ""); !near(got, 2.6) {
		t.Errorf("c3 / c2 on 1pd = %v, want 2.6", got)
	}
	if !strings.Contains(md, "no c2 cell: failed") {
		t.Errorf("the markdown does not say why 10pd has no ratios:\n%s", md)
	}
	// c2 along benchmark: 10pd failed, 1pd is the baseline; the group has one run.
	if g := groupOf(t, alongOf(t, rep, compare.DimBenchmark), []string{"c2"}); g.Missing != "" || g.Count() != 1 || g.Absent[1] != "no 10pd cell: failed" {
		t.Errorf("c2 along benchmark: %+v", g)
	}
}

// S1: off-node / on-node latency per machine type, per message size, as
// measured (--ratio value).
func TestAlongS1OffOverOnPerPool(t *testing.T) {
	b := newCampaign([]string{"c2", "c3"}, []string{"none"}, []string{"on-node", "off-node"})
	lat := map[string]map[string]map[string]float64{
		"c2": {"on-node": {"1": 0.25, "8": 0.25, "1024": 0.5, "1048576": 100}, "off-node": {"1": 20, "8": 20, "1024": 30, "1048576": 200}},
		"c3": {"on-node": {"1": 0.2, "8": 0.2, "1024": 0.4, "1048576": 80}, "off-node": {"1": 15, "8": 15, "1024": 20, "1048576": 120}},
	}
	for _, pool := range []string{"c2", "c3"} {
		for _, bench := range []string{"off-node", "on-node"} {
			b.cell(pool, "none", bench, pool+"-standard-8", "osu_latency", "latency", "us", lat[pool][bench], nil)
		}
	}
	runs, c := b.runs(t)
	rep, md := newReport(t, runs, Options{Campaign: c, Ratio: compare.RatioValue, Lead: []string{compare.DimBenchmark}})
	// The seed's answer first: the campaign's baselines name benchmark first.
	if len(rep.Along) != 2 || rep.Along[0].Dimension.Name != compare.DimBenchmark || rep.Along[1].Dimension.Name != compare.DimPool {
		t.Errorf("comparisons along %v, want benchmark (the lead) then pool", dimsOf(rep.Along))
	}
	for _, tc := range []struct {
		pool, size string
		want       float64
	}{{"c2", "8", 80}, {"c2", "1024", 60}, {"c2", "1048576", 2}, {"c3", "8", 75}, {"c3", "1024", 50}, {"c3", "1048576", 1.5}} {
		if got := ratioAlong(t, rep, compare.DimBenchmark, []string{tc.pool}, "off-node", "osu_latency", "latency", tc.size); !near(got, tc.want) {
			t.Errorf("%s off/on at %s B = %v, want %v", tc.pool, tc.size, got, tc.want)
		}
	}
	if got := ratioAlong(t, rep, compare.DimPool, []string{"off-node"}, "c3", "osu_latency", "latency", "8"); !near(got, 0.75) {
		t.Errorf("c3 / c2 off-node at 8 B = %v, want 0.75", got)
	}
	if !strings.Contains(md, "| off-node / on-node |") && !strings.Contains(md, " off-node / on-node ") {
		t.Errorf("markdown lacks the off-node / on-node column:\n%s", md)
	}
	// The seed's plot: off / on against message size, a curve per pool,
	// its points the table's ratios.
	plots := figure.Along(alongOf(t, rep, compare.DimBenchmark))
	if len(plots) != 1 || !slices.Equal(plots[0].Series, []string{"off-node / on-node, c2", "off-node / on-node, c3"}) {
		t.Fatalf("ratio plots along benchmark: %d, series %v; want one, a curve per pool", len(plots), seriesOf(plots))
	}
	if svg, err := plots[0].Draw(); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Fatalf("drawing the ratio plot: %v", err)
	}
	var page strings.Builder
	if err := rep.HTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "osu_latency: latency ratio vs message size") {
		t.Errorf("the page has no ratio-against-size plot")
	}
}

// seriesOf are the plots' legends, for messages.
func seriesOf(plots []figure.Plot) [][]string {
	var out [][]string
	for _, p := range plots {
		out = append(out, p.Series)
	}
	return out
}

// The ratio curves hold the table's ratios at each size, in size order.
func TestAlongPlotPoints(t *testing.T) {
	a := compare.Along{Dimension: compare.Dimension{Name: "benchmark", Values: []string{"on", "off"}, Baseline: "on"}, Others: []string{"pool"},
		Groups: []compare.AlongGroup{{Key: []string{"c2"}, Runs: []int{0, 1}, Rows: []compare.Row{
			{Test: "osu_latency", Metric: "latency", MsgSize: "8", Ratio: compare.RatioValue, Speedups: []float64{1, 80},
				Verdicts: []benchmath.Verdict{uncompared(), {Base: 3, Value: 3, Interval: benchmath.Interval{Lo: 70, Hi: 90}}}},
			{Test: "osu_latency", Metric: "latency", MsgSize: "1024", Ratio: compare.RatioValue, Speedups: []float64{1, 60},
				Verdicts: []benchmath.Verdict{uncompared(), uncompared()}},
			{Test: "osu_latency", Metric: "latency", MsgSize: "65536", Ratio: compare.RatioValue, Speedups: []float64{1, 8},
				Verdicts: []benchmath.Verdict{uncompared(), uncompared()}},
			{Test: "osu_latency", Metric: "latency", MsgSize: "1048576", Ratio: compare.RatioValue, Speedups: []float64{1, 2},
				Verdicts: []benchmath.Verdict{uncompared(), uncompared()}},
			{Test: "fio", Metric: "read_iops", Ratio: compare.RatioValue, Speedups: []float64{1, 2}, Verdicts: []benchmath.Verdict{uncompared(), uncompared()}},
		}}, {Key: []string{"c3"}, Runs: []int{-1, 2}, Missing: "no on cell: failed", Rows: []compare.Row{
			{Test: "osu_latency", Metric: "latency", MsgSize: "8", Ratio: compare.RatioValue, Speedups: []float64{math.NaN(), math.NaN()},
				Verdicts: []benchmath.Verdict{uncompared(), uncompared()}},
		}}}}
	figs := compare.RatioFigures(a)
	if len(figs) != 1 || len(figs[0].Curves) != 1 || figs[0].Curves[0].Name != "off / on, c2" {
		t.Fatalf("%d figures, want one with one curve for c2 (c3 has no baseline, fio no sizes)", len(figs))
	}
	c := figs[0].Curves[0]
	if fmt.Sprint(c.Xys) != "[{8 80} {1024 60} {65536 8} {1.048576e+06 2}]" || c.Lo[0] != 70 || c.Hi[0] != 90 || !math.IsNaN(c.Lo[1]) || !c.HasBars {
		t.Errorf("curve %v, interval lo %v hi %v; want the table's ratios and the known interval at 8 B", c.Xys, c.Lo, c.Hi)
	}
	if _, err := figure.Along(a)[0].Draw(); err != nil {
		t.Fatal(err)
	}
}

// S3: the ladder in the campaign's order (default, compact, smt-off), each
// step against the first and against the step before, per tuning.
func TestAlongS3Ladder(t *testing.T) {
	b := newCampaign([]string{"default", "compact", "smt-off"}, []string{"none", "tcp"}, []string{"osu"})
	settings := map[string]map[string]string{
		"default": {results.LabelThreadsPerCore: "2"},
		"compact": {results.LabelPlacement: "COMPACT", results.LabelThreadsPerCore: "2"},
		"smt-off": {results.LabelPlacement: "COMPACT", results.LabelThreadsPerCore: "1"},
	}
	lat := map[string]float64{"default/none": 30, "compact/none": 25, "smt-off/none": 20, "default/tcp": 24, "compact/tcp": 20, "smt-off/tcp": 15}
	for _, pool := range []string{"compact", "default", "smt-off"} {
		for _, tuning := range []string{"none", "tcp"} {
			labels := map[string]string{}
			for k, v := range settings[pool] {
				labels[k] = v
			}
			if tuning == "tcp" {
				labels[results.LabelTuning] = "wf-" + pool + "-tcp"
			}
			b.cell(pool, tuning, "osu", "c2-standard-60", "osu_latency", "latency", "us", map[string]float64{"8": lat[pool+"/"+tuning]}, labels)
		}
	}
	runs, c := b.runs(t)
	rep, md := newReport(t, runs, Options{Campaign: c})
	pool := alongOf(t, rep, compare.DimPool)
	if !pool.Ladder || !slices.Equal(pool.Dimension.Values, []string{"default", "compact", "smt-off"}) {
		t.Fatalf("pool: ladder %v, values %q", pool.Ladder, pool.Dimension.Values)
	}
	if alongOf(t, rep, compare.DimTuning).Ladder {
		t.Error("two tunings make a ladder")
	}
	for _, tuning := range []string{"none", "tcp"} {
		g := groupOf(t, pool, []string{tuning})
		first := row(t, g.Rows, "osu_latency", "latency", "8")
		step := row(t, g.Steps, "osu_latency", "latency", "8")
		want := func(a, b string) float64 { return lat[a+"/"+tuning] / lat[b+"/"+tuning] } // speedups of a latency
		if !near(first.Speedups[2], want("default", "smt-off")) || !near(first.Speedups[1], want("default", "compact")) {
			t.Errorf("%s: against the first %v", tuning, first.Speedups)
		}
		if !math.IsNaN(step.Speedups[0]) || !near(step.Speedups[1], want("default", "compact")) || !near(step.Speedups[2], want("compact", "smt-off")) {
			t.Errorf("%s: against the step before %v", tuning, step.Speedups)
		}
	}
	if !strings.Contains(md, "smt-off speedup vs compact (step before)") || !strings.Contains(md, "1.25x") {
		t.Errorf("markdown lacks the step-before column or smt-off's 1.25x:\n%s", md)
	}
	// Three pools by two tunings are a matrix: the ladder is along the
	// pools, per tuning, and there is no ladder table of the six runs.
	if _, steps := compare.LadderOf(rep.Runs); steps != nil || strings.Contains(md, "## Tuning ladder") {
		t.Errorf("a 3x2 matrix has a ladder table: %+v", steps)
	}
}

// Issue 44: a 2x2 matrix (two pools by two tunings) is no ladder: no
// "Tuning ladder" section, whose steps would cross pools. The two tunings
// of one pool alone are.
func TestMatrixIsNoLadder(t *testing.T) {
	b := newCampaign([]string{"n2d", "e2"}, []string{"none", "rmem"}, []string{"fio"})
	for _, pool := range []string{"n2d", "e2"} {
		for _, tuning := range []string{"none", "rmem"} {
			b.cell(pool, tuning, "fio", "e2-standard-2", "randwrite", "write_iops", "IOPS", map[string]float64{"": 1000},
				map[string]string{results.LabelTuning: "wf-" + pool + "-" + tuning})
		}
	}
	runs, c := b.runs(t)
	rep, md := newReport(t, runs, Options{Campaign: c})
	var html bytes.Buffer
	if err := rep.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md, "Tuning ladder") || strings.Contains(html.String(), "Tuning ladder") {
		t.Errorf("a 2x2 matrix has a tuning ladder section:\n%s", md)
	}
	var onePool []compare.Run
	for _, r := range rep.Runs {
		if r.Place[compare.DimPool] == "n2d" {
			onePool = append(onePool, r)
		}
	}
	if _, steps := compare.LadderOf(onePool); len(steps) != 2 || !slices.Equal(steps[1].Changes, []string{"tuning none → rmem"}) {
		t.Errorf("the tunings of one pool: steps %+v, want none → rmem", steps)
	}
}

func TestAlongBadBaseline(t *testing.T) {
	runs, c := s0(t, false)
	for _, tc := range []struct {
		baselines map[string]string
		want      string
	}{
		{map[string]string{compare.DimPool: "c9"}, "baseline pool=c9: c9 is none of pool's values (c2, c2d, c3)"},
		{map[string]string{"zone": "a"}, "baseline zone=a: the runs have no dimension zone (they have: pool, tuning, benchmark)"},
	} {
		if err := Baselines(runs, c, tc.baselines); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.baselines, err, tc.want)
		}
		rep, md := newReport(t, runs, Options{Campaign: c, Baselines: tc.baselines})
		if len(rep.Along) != 0 || rep.Comparison != nil || !strings.Contains(md, tc.want) {
			t.Errorf("%v: %d comparison(s) along dimensions, note %q", tc.baselines, len(rep.Along), rep.AlongNote)
		}
	}
	if err := Baselines(runs, c, map[string]string{compare.DimPool: "c2d", compare.DimBenchmark: "10pd"}); err != nil {
		t.Error(err)
	}
}

// A campaign of one cell, run twice, has nothing to compare, and says so;
// runs outside a campaign that differ in no label keep the comparison with
// one baseline run.
func TestAlongNothingVaries(t *testing.T) {
	b := newCampaign([]string{"c2"}, []string{"none"}, []string{"fio"})
	b.cell("c2", "none", "fio", "c2-standard-60", "randread-4k", "read_iops", "IOPS", map[string]float64{"": 100}, nil)
	again := b.cell("c2", "none", "fio", "c2-standard-60", "randread-4k", "read_iops", "IOPS", map[string]float64{"": 110}, nil).samples
	for i := len(again) - 3; i < len(again); i++ {
		again[i].RunUID = "uid-rerun"
	}
	runs, c := b.runs(t)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	rep, md := newReport(t, runs, Options{Campaign: c})
	if len(rep.Along) != 0 || rep.Comparison != nil || !strings.Contains(md, "Nothing to compare: no dimension of the campaign varies among the runs (pool c2; tuning none; benchmark fio).") {
		t.Errorf("along %d, comparison %v:\n%s", len(rep.Along), rep.Comparison != nil, md)
	}
	rep, _ = newReport(t, group(t, mpiSamples()), Options{})
	if len(rep.Along) != 0 || rep.AlongNote != "" || rep.Comparison == nil {
		t.Errorf("runs without dimensions: along %d (%q), comparison %v", len(rep.Along), rep.AlongNote, rep.Comparison != nil)
	}
}

// Benchmarks of different tests have no figure in common: no table along
// them (never an empty one), while the pools still compare each.
func TestAlongNothingInCommon(t *testing.T) {
	b := newCampaign([]string{"c2", "c3"}, []string{"none"}, []string{"fio", "osu"})
	for _, pool := range []string{"c2", "c3"} {
		f := map[string]float64{"c2": 1, "c3": 2}[pool]
		b.cell(pool, "none", "fio", pool+"-standard-8", "randread-4k", "read_iops", "IOPS", map[string]float64{"": 1000 * f}, nil)
		b.cell(pool, "none", "osu", pool+"-standard-8", "osu_latency", "latency", "us", map[string]float64{"8": 20 / f}, nil)
	}
	runs, c := b.runs(t)
	rep, md := newReport(t, runs, Options{Campaign: c})
	if len(rep.Along) != 1 || rep.Along[0].Dimension.Name != compare.DimPool || strings.Contains(md, "### benchmark") {
		t.Fatalf("along %d dimension(s), want pool's alone:\n%s", len(rep.Along), md)
	}
	if got := ratioAlong(t, rep, compare.DimPool, []string{"osu"}, "c3", "osu_latency", "latency", "8"); !near(got, 2) {
		t.Errorf("c3 / c2 osu latency speedup %v, want 2", got)
	}
}

// dimsOf are the comparisons' dimensions, for messages.
func dimsOf(along []compare.Along) []string {
	var out []string
	for _, a := range along {
		out = append(out, a.Dimension.Name)
	}
	return out
}

// A campaign's report draws ratio plots along its own dimensions only: a
// label that varies besides (S2's scope) keeps its table, without plots.
func TestCampaignPlotsItsOwnDimensions(t *testing.T) {
	rows := func() []compare.Row {
		var out []compare.Row
		for _, size := range []string{"1", "8", "64", "1024"} {
			out = append(out, compare.Row{Test: "fi_msg_bw", Metric: "bandwidth", MsgSize: size, Unit: "MB/s", Ratio: compare.RatioValue,
				Medians: []float64{10, 5}, Speedups: []float64{1, 0.5}, Verdicts: []benchmath.Verdict{uncompared(), uncompared()},
				CVs: []float64{1, 1}, Noisy: []bool{false, false}, MaxCV: 10})
		}
		return out
	}
	along := func(dim compare.Dimension) compare.Along {
		return compare.Along{Dimension: dim, Groups: []compare.AlongGroup{{Runs: []int{0, 1}, Absent: []string{"", ""}, Rows: rows()}}}
	}
	pool := compare.Dimension{Name: compare.DimPool, Values: []string{"c2", "c3"}, Baseline: "c2", Declared: true}
	scope := compare.Dimension{Name: "scope", Values: []string{"intraSocket", "interNode"}, Baseline: "intraSocket"}
	r := &Report{Dimensions: []compare.Dimension{pool, scope}, Along: []compare.Along{along(pool), along(scope)}}
	tables := alongTables(r)
	if len(tables) != 2 || len(tables[0].Plots) != 1 || len(tables[1].Plots) != 0 || !tables[1].Open {
		t.Errorf("plots along pool %d, along scope %d (open %v); want one, and none with the table open", len(tables[0].Plots), len(tables[1].Plots), tables[1].Open)
	}
	scope.Declared, pool.Declared = false, false // no campaign: every dimension is a label's
	r = &Report{Dimensions: []compare.Dimension{pool, scope}, Along: []compare.Along{along(pool), along(scope)}}
	if tables := alongTables(r); len(tables[1].Plots) != 1 {
		t.Errorf("outside a campaign, a label's comparison has %d plots, want 1", len(tables[1].Plots))
	}
}

// A ladder of tunings on one shared pool (sharePool): the TuningProfile is
// named after the pool for every tuning, so the runs' own tuning label does
// not change from tcp-memory to tcp. The report names each run's tuning as
// the campaign does, and the steps are a ladder, each against the one
// before.
func TestAlongTuningLadderOnASharedPool(t *testing.T) {
	b := newCampaign([]string{"default"}, []string{"none", "tcp-memory", "tcp"}, []string{"osu"})
	lat := map[string]float64{"none": 28, "tcp-memory": 20, "tcp": 16}
	for _, tuning := range []string{"none", "tcp-memory", "tcp"} {
		labels := map[string]string{results.LabelFirewallRules: "12"}
		if tuning != "none" {
			labels[results.LabelTuning] = "wf-default" // the shared pool's profile
		}
		b.cell("default", tuning, "osu", "c2-standard-60", "osu_latency", "latency", "us", map[string]float64{"8": lat[tuning]}, labels)
	}
	runs, c := b.runs(t)
	rep, md := newReport(t, runs, Options{Campaign: c})
	tuning := alongOf(t, rep, compare.DimTuning)
	if !tuning.Ladder {
		t.Fatal("three tunings of a shared pool are no ladder")
	}
	g := groupOf(t, tuning, nil)
	step := row(t, g.Steps, "osu_latency", "latency", "8")
	if !near(step.Speedups[1], 28.0/20) || !near(step.Speedups[2], 20.0/16) {
		t.Errorf("steps %v, want 1.4x and 1.25x", step.Speedups)
	}
	_, steps := compare.LadderOf(rep.Runs)
	if len(steps) != 3 || !slices.Equal(steps[2].Changes, []string{"tuning tcp-memory → tcp"}) {
		t.Errorf("the ladder table's steps %+v, want the last to change the tuning tcp-memory → tcp", steps)
	}
	if !strings.Contains(md, "tcp speedup vs tcp-memory (step before)") {
		t.Errorf("markdown lacks the step before:\n%s", md)
	}
}

// uncompared is the verdict of a cell without a test.
func uncompared() benchmath.Verdict {
	return benchmath.Verdict{Interval: benchmath.Interval{Lo: math.NaN(), Hi: math.NaN()}}
}

// A comparison along a dimension is printed as one table: its false
// discovery control runs over every group's comparisons together.
func TestAlongDecidedAsOneTable(t *testing.T) {
	runs, c := s0(t, false)
	rep, _ := newReport(t, runs, Options{Campaign: c})
	pool := alongOf(t, rep, compare.DimPool)
	compared := 0
	for _, r := range pool.Rows() {
		for i := range r.Verdicts {
			if r.Compared(i) {
				compared++
			}
		}
	}
	if len(pool.Groups) < 2 || compared < 4 {
		t.Fatalf("%d groups, %d comparisons: want two groups of c2d and c3 against c2", len(pool.Groups), compared)
	}
	for _, g := range pool.Groups {
		if f := compare.Family(g.Rows); f != compared {
			t.Errorf("group %v decided over %d comparisons, want the table's %d", g.Key, f, compared)
		}
	}
}

// Issue 44: fio's randwrite and iperf3 share no test, so the benchmark
// dimension compares nothing, even where a failed fio cell leaves iperf3
// alone in its group ("benchmark: tcp / randwrite" divided one by the other).
// The pools still compare iperf3.
func TestAlongBenchmarksShareATest(t *testing.T) {
	b := newCampaign([]string{"n2d", "e2"}, []string{"none"}, []string{"randwrite", "tcp"})
	for _, pool := range []string{"n2d", "e2"} {
		if pool == "e2" {
			b.cell(pool, "none", "randwrite", "e2-standard-2", "randwrite", "write_iops", "IOPS", map[string]float64{"": 1000}, nil)
		}
		b.cell(pool, "none", "tcp", "e2-standard-2", "iperf3", "bandwidth", "Gbit/s", map[string]float64{"": 12}, nil)
	}
	runs, c := b.runs(t)
	cells := []compare.Cell{{Pool: "n2d", Tuning: "none", Benchmark: "randwrite", Name: "wf-n2d-none-randwrite", State: "Failed"}}
	rep, md := newReport(t, runs, Options{Campaign: c, Cells: cells})
	for _, a := range rep.Along {
		if a.Dimension.Name == compare.DimBenchmark {
			t.Errorf("benchmarks that share no test compared:\n%s", md)
		}
	}
	if r := row(t, alongOf(t, rep, compare.DimPool).Rows(), "iperf3", "bandwidth", ""); !near(r.Speedups[1], 1) {
		t.Errorf("iperf3 e2 / n2d = %v, want 1", r.Speedups[1])
	}
}
