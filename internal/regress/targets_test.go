package regress

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// A benchmark's history as the issue measured it: runs whose figures are
// the medians of 3 repetitions at a repetition CV, benchGroups fio jobs
// each with an IOPS figure and its bandwidth (IOPS x 4 KiB: one group of
// two figures), the jobs' noise independent. Every check runs as the
// manager runs it: at each new run, the IOPS series of each group with
// Groups set to the benchmark's group count.
const (
	benchGroups = 4
	benchRuns   = 30
	// stepAt is the first run of a step.
	stepAt = 20
)

// scenario draws a run's level factor (step, drift, one-off) before noise.
type scenario struct {
	// repCV is the repetitions' CV (3 % gives about 2 % between runs).
	repCV float64
	// level is the run's level, outlier says whether run i of a series is a
	// one-off (-15 %).
	level   func(i int) float64
	outlier float64
}

func (sc scenario) series(rng *rand.Rand, groups int) [][]float64 {
	out := make([][]float64, groups)
	for i := range benchRuns {
		f := sc.level(i)
		if rng.Float64() < sc.outlier {
			f *= 0.85 // the whole run: something else on the node
		}
		for g := range groups {
			reps := []float64{}
			for range 3 {
				reps = append(reps, 1000*f*(1+sc.repCV*rng.NormFloat64()))
			}
			out[g] = append(out[g], median(reps))
		}
	}
	return out
}

// outcome is one series' verdicts at each run, merged over its groups: the
// worst of them (Regressed over Improved over anything else).
type outcome []Change

func runScenario(sc scenario, n, groups int, seed uint64) []outcome {
	rng := rand.New(rand.NewPCG(seed, 45))
	out := make([]outcome, n)
	for s := range n {
		series := sc.series(rng, groups)
		o := make(outcome, benchRuns)
		for end := 2; end <= benchRuns; end++ {
			if groups == 1 {
				o[end-1] = Check(series[0][:end], false, Options{}).Change
				continue
			}
			o[end-1] = CheckBenchmark(benchmarkFigures(series, end), Options{}).Verdict.Change
		}
		out[s] = o
	}
	return out
}

// benchmarkFigures are a group's IOPS and its bandwidth (IOPS x 4 KiB) for
// each series, up to run end.
func benchmarkFigures(series [][]float64, end int) []Figure {
	var figs []Figure
	for g, s := range series {
		bw := make([]float64, end)
		for i, v := range s[:end] {
			bw[i] = v * 4096
		}
		group := "job" + strconv.Itoa(g)
		figs = append(figs, Figure{Series: s[:end], Group: group}, Figure{Series: bw, Group: group})
	}
	return figs
}

// share is the share of outcomes that have change c at some run in
// [from, to).
func share(os []outcome, c Change, from, to int) (hits, n int) {
	for _, o := range os {
		for i := from; i < to; i++ {
			if o[i] == c || c == "flagged" && (o[i] == Regressed || o[i] == Improved) {
				hits++
				break
			}
		}
	}
	return hits, len(os)
}

// wilson is the 95 % Wilson score interval of hits in n.
func wilson(hits, n int) (lo, hi float64) {
	const z = 1.96
	p, fn := float64(hits)/float64(n), float64(n)
	c := (p + z*z/(2*fn)) / (1 + z*z/fn)
	h := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / (1 + z*z/fn)
	return c - h, c + h
}

// target is one row of the table: a share, its interval, what it must be.
type target struct {
	name     string
	hits, n  int
	min, max float64
}

func (t target) String() string {
	lo, hi := wilson(t.hits, t.n)
	want := fmt.Sprintf("≤ %.0f %%", 100*t.max)
	if t.min > 0 {
		want = fmt.Sprintf("≥ %.0f %%", 100*t.min)
	}
	return fmt.Sprintf("| %-58s | %s | %5.1f %% [%4.1f, %5.1f] | %d |", t.name, want, 100*float64(t.hits)/float64(t.n), 100*lo, 100*hi, t.n)
}

func (t target) holds() bool {
	p := float64(t.hits) / float64(t.n)
	return p >= t.min && (t.max == 0 || p <= t.max)
}

// targetSeries is how many series per case: BENCHWRIGHT_REGRESS_SERIES, or
// 60 (make test), 400 for make bench-regress.
func targetSeries() int {
	if n, err := strconv.Atoi(os.Getenv("BENCHWRIGHT_REGRESS_SERIES")); err == nil && n > 0 {
		return n
	}
	return 60
}

// The targets on synthetic histories of 30 runs, for a benchmark
// of 4 groups of figures (8 headline figures) and for one figure alone,
// printed as a table with 95 % Wilson intervals. make test runs 60 series
// a case of the benchmark and asserts its point estimates; make
// bench-regress runs 400 of each.
func TestTargetsOnSyntheticHistories(t *testing.T) {
	if testing.Short() {
		t.Skip("synthetic histories")
	}
	n := targetSeries()
	flat := func(int) float64 { return 1 }
	stepDown := func(i int) float64 {
		if i >= stepAt {
			return 0.95
		}
		return 1
	}
	drift := func(i int) float64 { return 1 - 0.003*float64(i) }
	const cv2, cv1 = 0.03, 0.015 // repetitions' CV: about 2 % and 1 % between runs
	var rows []target
	units := []struct {
		name   string
		groups int
	}{{"benchmark", benchGroups}, {"figure", 1}}
	if os.Getenv("BENCHWRIGHT_REGRESS_SERIES") == "" {
		units = units[:1] // make test: the asserted column only
	}
	for _, unit := range units {
		u := " (" + unit.name + ")"
		none := runScenario(scenario{repCV: cv2, level: flat}, n, unit.groups, 1)
		h, m := share(none, "flagged", 0, benchRuns)
		rows = append(rows, target{name: "no change: flagged anywhere in 30 runs" + u, hits: h, n: m, max: 0.01})
		odd := runScenario(scenario{repCV: cv2, level: flat, outlier: 0.05}, n, unit.groups, 2)
		h, m = share(odd, Regressed, 0, benchRuns)
		rows = append(rows, target{name: "5 % one-off runs at -15 %: flagged Regressed" + u, hits: h, n: m, max: 0.02})
		h, m = share(odd, Outlier, 0, benchRuns)
		rows = append(rows, target{name: "5 % one-off runs at -15 %: a one-off reported" + u, hits: h, n: m, min: 0.5})
		for _, c := range []struct {
			cv        float64
			within3   float64
			label     string
			withinTen bool
		}{{cv2, 0.90, "2 %", true}, {cv1, 0.95, "1 %", false}} {
			steps := runScenario(scenario{repCV: c.cv, level: stepDown}, n, unit.groups, 3)
			h, m = share(steps, Regressed, stepAt, stepAt+3)
			rows = append(rows, target{name: "a 5 % drop at " + c.label + " CV: Regressed within 3 runs" + u, hits: h, n: m, min: c.within3})
			if c.withinTen {
				h, m = share(steps, Regressed, stepAt, benchRuns)
				rows = append(rows, target{name: "a 5 % drop at 2 % CV: Regressed within 10 runs" + u, hits: h, n: m, min: 0.99})
				h, m = share(steps, Regressed, benchRuns-1, benchRuns)
				rows = append(rows, target{name: "a 5 % drop at 2 % CV: still Regressed 10 runs on" + u, hits: h, n: m, min: 0.99})
			}
		}
		drifts := runScenario(scenario{repCV: cv2, level: drift}, n, unit.groups, 4)
		h, m = share(drifts, Regressed, 0, 18) // run 18 is at -5.1 %
		rows = append(rows, target{name: "-0.3 %/run drift: Regressed by -5 % (run 18)" + u, hits: h, n: m, min: 0.90})
	}
	t.Logf("| case | target | measured [95 %% Wilson] | series |")
	for _, r := range rows {
		t.Log(r)
		if !r.holds() && r.name[len(r.name)-len("(benchmark)"):] == "(benchmark)" {
			t.Errorf("target missed: %s", r)
		}
	}
}
