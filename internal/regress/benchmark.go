package regress

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Figure is one of a benchmark's figures to check.
type Figure struct {
	// Series are the runs' medians, oldest first, the run checked last.
	Series        []float64
	LowerIsBetter bool
	// Group names the figures that measure the same thing (a fio job's
	// IOPS and bandwidth): they count once among the groups, and the
	// joint check takes the group's first figure. Empty: a group of its own.
	Group string
}

// Benchmark is a benchmark's verdict over its figures.
type Benchmark struct {
	// Verdict is the benchmark's: its worst figure's, or, when no figure
	// crossed its level alone, its groups' joint finding (Method
	// MethodJointStep or MethodJointChange; Ratio is then the groups'
	// geometric mean change, below 1 worse whatever the metrics).
	Verdict Verdict
	// Worst is the figure whose verdict is the benchmark's (-1: joint, or
	// none).
	Worst int
	// Groups is how many groups were checked together.
	Groups int
	// Figures are the figures' own verdicts, in order.
	Figures []Verdict
}

// Methods of a benchmark's joint verdict.
const (
	MethodJointStep   = "joint step"
	MethodJointChange = "joint change point"
	MethodJointTrend  = "joint trend"
)

// CheckBenchmark checks a benchmark's figures together: each group at
// Alpha/Groups (Options.Groups is set to the group count), and the groups
// jointly (Stouffer's sum of their normal scores, at Alpha), so the false
// alarms per benchmark stay at Alpha's rate however many figures it has,
// while a change every group shares is found sooner than in any one.
func CheckBenchmark(figs []Figure, opts Options) Benchmark {
	first := map[string]int{}
	var reps []int
	for i, f := range figs {
		key := "\x00" + strconv.Itoa(i)
		if f.Group != "" {
			key = f.Group
		}
		if _, ok := first[key]; !ok {
			first[key] = i
			reps = append(reps, i)
		}
	}
	opts.Groups = len(reps)
	o := opts.withDefaults()
	out := Benchmark{Worst: -1, Groups: len(reps), Figures: make([]Verdict, len(figs))}
	evs := make([]evidence, len(figs))
	for i := range figs {
		out.Figures[i], evs[i] = check(figs[i].Series, figs[i].LowerIsBetter, o)
	}
	out.Verdict = Verdict{Change: TooFew}
	for _, c := range []Change{Regressed, Improved} {
		if i := worstOf(out.Figures, c); i >= 0 {
			out.Verdict, out.Worst = out.Figures[i], i
			return out
		}
		if v, ok := joint(figs, reps, evs, c, o); ok {
			out.Verdict = v
			return out
		}
	}
	if i := worstOf(out.Figures, Outlier); i >= 0 {
		out.Verdict, out.Worst = out.Figures[i], i
		return out
	}
	if slices.ContainsFunc(out.Figures, func(v Verdict) bool { return v.Change == Steady }) {
		out.Verdict = Verdict{Change: Steady}
	}
	return out
}

// worstOf is the figure of change c that changed most, or -1.
func worstOf(vs []Verdict, c Change) int {
	best := -1
	for i, v := range vs {
		if v.Change == c && (best < 0 || math.Abs(math.Log(v.Ratio)) > math.Abs(math.Log(vs[best].Ratio))) {
			best = i
		}
	}
	return best
}

// joint is the groups' joint verdict of change c, by the step and else by
// the change points: the sum of the groups' normal scores (positive worse)
// over the root of how many were checked, at Alpha, and their mean change
// beyond the tolerance.
func joint(figs []Figure, reps []int, evs []evidence, c Change, o Options) (Verdict, bool) {
	for _, method := range []string{MethodJointStep, MethodJointChange, MethodJointTrend} {
		var sumZ, sumD float64
		n, since := 0, math.MaxInt
		for _, i := range reps {
			ev := evs[i]
			ok, z, d, at := ev.stepOK, ev.stepZ, ev.stepD, ev.stepSince
			if method == MethodJointChange {
				ok, z, d, at = ev.changeOK || ev.stepOK, ev.changeZ, ev.changeD, ev.changeSince
				if !ev.changeOK {
					z, d = 0, 0
				}
			}
			if method == MethodJointTrend {
				ok, z, d, at = ev.trendOK, ev.trendZ, ev.trendD, ev.trendSince
			}
			if !ok {
				continue
			}
			if figs[i].LowerIsBetter {
				d = -d // below 0 is worse
			}
			n++
			sumZ, sumD = sumZ+z, sumD+d
			if z != 0 {
				since = min(since, at)
			}
		}
		if n < 2 {
			continue
		}
		zj := sumZ / math.Sqrt(float64(n))
		p := math.Erfc(math.Abs(zj) / math.Sqrt2)
		ratio := math.Exp(sumD / float64(n))
		got := Improved
		if zj > 0 {
			got = Regressed
		}
		if got == c && p <= o.Alpha && math.Abs(ratio-1) >= o.Tolerance && since != math.MaxInt {
			return Verdict{Change: c, Method: method, Since: since, Ratio: ratio, Low: ratio, High: ratio, P: p}, true
		}
	}
	return Verdict{}, false
}

// Describe says what a benchmark's verdict is, naming figure i by
// figure(i) and run j by run(j).
func (b Benchmark) Describe(figure func(int) string, run func(int) string) string {
	v := b.Verdict
	switch {
	case b.Worst >= 0:
		return figure(b.Worst) + ": " + v.Describe(run)
	case v.Method == MethodJointStep || v.Method == MethodJointChange || v.Method == MethodJointTrend:
		return fmt.Sprintf("%s since run %s: its figures %+.1f%% on average over %d groups (%s, p = %.2g; no one figure alone)",
			v.Change, run(v.Since), 100*(v.Ratio-1), b.Groups, v.Method, v.P)
	}
	return v.Describe(run)
}
