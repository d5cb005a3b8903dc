package regress

import (
	"fmt"
	"math"
	"slices"
)

// Change is what a check found.
type Change string

// What a check can find.
const (
	Steady    Change = "Steady"
	Regressed Change = "Regressed"
	Improved  Change = "Improved"
	// Outlier: the newest run is far from its history, and no later run
	// has confirmed a change yet.
	Outlier Change = "Outlier"
	// TooFew: the history is too short to tell.
	TooFew Change = "TooFewRuns"
)

// Methods of a verdict.
const (
	MethodStep        = "step"
	MethodChangePoint = "change point"
	MethodTrend       = "trend"
	MethodOutlier     = "one-off"
)

// Options tune a check; zero fields take the defaults.
type Options struct {
	// Tolerance is the smallest relative change that counts (default 2 %):
	// a significant change smaller than that is Steady.
	Tolerance float64
	// Alpha is the level of the step test and of a one-off run, for one
	// group of figures (DefaultAlpha).
	Alpha float64
	// Groups is how many independent groups of figures are checked
	// together (a benchmark's headline figures, those that measure the same
	// thing counted once): each is checked at Alpha/Groups, so the
	// benchmark's false alarms stay at Alpha's rate (default 1).
	Groups int
	// ChangeAlpha is the change points' permutation level
	// (DefaultChangeAlpha).
	ChangeAlpha float64
	// Window is how many runs before the confirming ones the step compares
	// them with (default 20), none before the last change point.
	Window int
	// History is how many of the newest runs change points are searched in
	// (default 50).
	History int
	// MinRuns is the fewest baseline runs a step needs (DefaultMinRuns).
	MinRuns int
	// Confirm is how many runs in a row a step needs to call a change
	// (default 3): fewer, far from the history, are one-offs.
	Confirm int
	// Permutations test a change point (default 999).
	Permutations int
}

func (o Options) withDefaults() Options {
	defaults := Options{Tolerance: 0.02, Alpha: DefaultAlpha, Groups: 1, ChangeAlpha: DefaultChangeAlpha,
		Window: 20, History: 50, MinRuns: DefaultMinRuns, Confirm: 3, Permutations: 999}
	for _, f := range []struct{ v, d *float64 }{{&o.Tolerance, &defaults.Tolerance}, {&o.Alpha, &defaults.Alpha}, {&o.ChangeAlpha, &defaults.ChangeAlpha}} {
		if *f.v == 0 {
			*f.v = *f.d
		}
	}
	for _, f := range []struct{ v, d *int }{{&o.Groups, &defaults.Groups}, {&o.Window, &defaults.Window}, {&o.History, &defaults.History},
		{&o.MinRuns, &defaults.MinRuns}, {&o.Confirm, &defaults.Confirm}, {&o.Permutations, &defaults.Permutations}} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	return o
}

// DefaultAlpha is the step's and a one-off's level per group of figures.
const DefaultAlpha = 0.0001

// selectedSplit divides the level of the t test between a change point's
// two sides: the split was chosen as the strongest, so its t is larger than
// a fixed split's would be.
const selectedSplit = 3

// DefaultChangeAlpha is the change points' level.
const DefaultChangeAlpha = 0.002

// DefaultMinRuns is the fewest baseline runs a step needs by default.
const DefaultMinRuns = 4

// powerZ is the normal quantile of the power Detectable is stated at (90 %).
const powerZ = 1.2816

// Verdict is a check's finding about the newest run of a series.
type Verdict struct {
	Change Change `json:"change"`
	// Method is MethodStep, MethodChangePoint, MethodTrend or MethodOutlier,
	// or a joint one on a benchmark's verdict (empty when Steady or TooFew).
	Method string `json:"method,omitempty"`
	// Since is the first run of the new level (Regressed, Improved) or the
	// one-off run (Outlier).
	Since int `json:"since"`
	// Ratio is the new level over the old one, Low and High its 95 %
	// interval (Student's t on the runs' logs).
	Ratio float64 `json:"ratio,omitempty"`
	Low   float64 `json:"low,omitempty"`
	High  float64 `json:"high,omitempty"`
	// P is the method's p-value (for a step, before the Groups correction).
	P float64 `json:"p,omitempty"`
	// Baseline and After are the indexes of the runs compared: the old
	// level's, and those the new level is measured on.
	Baseline []int `json:"baseline,omitempty"`
	After    []int `json:"after,omitempty"`
	// ChangePoints are the series' change points (the first run after
	// each), Outliers the runs that look like one-offs.
	ChangePoints []int `json:"change_points,omitempty"`
	Outliers     []int `json:"outliers,omitempty"`
	// Noise is the run-to-run coefficient of variation of the baseline
	// (one-offs left out), Detectable the smallest change a step finds
	// within Confirm runs 90 % of the time at that noise (at least the
	// tolerance); both 0 when there is no baseline.
	Noise      float64 `json:"noise,omitempty"`
	Detectable float64 `json:"detectable,omitempty"`
}

// Flagged says whether the verdict is a change (Regressed or Improved).
func (v Verdict) Flagged() bool { return v.Change == Regressed || v.Change == Improved }

// String says what the check found in a sentence's words; runs are named
// by their index in the series.
func (v Verdict) String() string {
	return v.Describe(func(i int) string { return fmt.Sprintf("#%d", i+1) })
}

// Describe is String with runs named by name.
func (v Verdict) Describe(name func(int) string) string {
	switch v.Change {
	case TooFew:
		return "too few earlier runs to tell"
	case Steady:
		return "steady against its history"
	case Outlier:
		return fmt.Sprintf("run %s looks like a one-off: %+.1f%% (p = %.2g); runs like it after it confirm a change", name(v.Since), 100*(v.Ratio-1), v.P)
	}
	how := fmt.Sprintf("%d run(s) against %d", len(v.After), len(v.Baseline))
	if v.Method == MethodChangePoint {
		how = fmt.Sprintf("change point, %d run(s) since against %d before", len(v.After), len(v.Baseline))
	} else {
		how = "step, " + how
	}
	return fmt.Sprintf("%s since run %s: %+.1f%% [%+.1f%%, %+.1f%%] (%s, p = %.2g)", v.Change, name(v.Since),
		100*(v.Ratio-1), 100*(v.Low-1), 100*(v.High-1), how, v.P)
}

// Check tells where the newest point of series (run medians, oldest first)
// stands against the ones before. lowerIsBetter says which way is a
// regression. Runs are compared on their logs, so a check gives one
// verdict for a figure and for any multiple of it.
//
// First a step: the last Confirm runs against the Window runs before them
// since the last change point (one-offs left out), by Student's t at
// Alpha/Groups; the confirming runs must agree with each other (one or two
// runs far from the rest are one-offs, not a change). Else the state since
// the most recent change point (E-divisive, permutation test): a level
// beyond the tolerance stays Regressed or Improved "since run X" until a
// later change point. Else the newest run alone, far from the baseline, is
// an Outlier.
func Check(series []float64, lowerIsBetter bool, opts Options) Verdict {
	v, _ := check(series, lowerIsBetter, opts.withDefaults())
	return v
}

// evidence is what a check saw, for a benchmark's joint check: the step's
// and the change point's statistics as normal scores, positive when worse,
// and their changes (log ratios).
type evidence struct {
	stepOK, changeOK, trendOK bool
	stepZ, changeZ, trendZ    float64
	stepD, changeD, trendD    float64
	stepSince, changeSince    int
	trendSince                int
}

func check(series []float64, lowerIsBetter bool, o Options) (Verdict, evidence) {
	n := len(series)
	var ev evidence
	if n < 2 || slices.ContainsFunc(series, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 }) {
		return Verdict{Change: TooFew}, ev
	}
	y := logs(series)
	base := max(0, n-o.History)
	cps := changePoints(y[base:], o)
	v := Verdict{Change: Steady}
	for i := range cps {
		cps[i].at += base
		v.ChangePoints = append(v.ChangePoints, cps[i].at)
	}
	if n-1 < o.MinRuns {
		v.Change = TooFew
		return v, ev
	}
	worse := 1.0
	if !lowerIsBetter {
		worse = -1
	}
	alpha := o.Alpha / float64(o.Groups)
	st := stepOf(y, cps, base, o)
	v.Noise, v.Outliers = st.noise, st.outliers
	if st.ok {
		v.Detectable = max(o.Tolerance, math.Expm1((tQuantile(alpha, st.df)+powerZ)*st.sd*math.Sqrt(1/float64(o.Confirm)+1/float64(len(st.baseline)))))
	}
	if st.ok && st.confirmed {
		ev.stepOK, ev.stepD, ev.stepSince = true, st.d, st.window[0]
		ev.stepZ = normalScore(st.d/st.se, st.df) * worse
	}
	// The newest change point whose level still differs: later ones within
	// the tolerance, or not significant, do not end its state.
	var cv Verdict
	for j := len(cps); j > 0; j-- {
		c, t, df := changeState(y, cps[:j], base, lowerIsBetter, o)
		if c.Change == "" {
			continue
		}
		if !ev.changeOK {
			cv, ev.changeOK, ev.changeD, ev.changeSince = c, true, math.Log(c.Ratio), c.Since
			ev.changeZ = normalScore(t, df) * worse
		}
		if c.P <= alpha/selectedSplit {
			cv = c
			break
		}
	}
	tr := trendOf(y, base, o)
	if tr.ok {
		ev.trendOK, ev.trendD, ev.trendSince = true, tr.d, tr.from
		ev.trendZ = normalScore(tr.t, tr.df) * worse
	}
	trendP := studentTwoSided(tr.t, tr.df)
	stepChange := Steady
	if ev.stepOK && st.p <= alpha {
		stepChange = verdict(math.Exp(st.d), lowerIsBetter, o)
	}
	changed := ev.changeOK && cv.P <= alpha/selectedSplit
	switch {
	case stepChange != Steady && (!changed || cv.Change != stepChange):
		// A new change, or the first runs of one no change point shows yet.
		return st.verdict(v, stepChange, MethodStep), ev
	case changed:
		// Runs of the new level are not one-offs of the old.
		cv.ChangePoints, cv.Noise, cv.Detectable = v.ChangePoints, v.Noise, v.Detectable
		cv.Outliers = slices.DeleteFunc(v.Outliers, func(i int) bool { return i >= cv.Since })
		return cv, ev
	case tr.ok && trendP <= alpha && verdict(math.Exp(tr.d), lowerIsBetter, o) != Steady:
		q := tQuantile(0.05, tr.df)
		half := q * math.Abs(tr.d/tr.t)
		v.Change, v.Method, v.Since, v.P = verdict(math.Exp(tr.d), lowerIsBetter, o), MethodTrend, tr.from, trendP
		v.Ratio, v.Low, v.High = math.Exp(tr.d), math.Exp(tr.d-half), math.Exp(tr.d+half)
		v.Baseline, v.After = nil, span(tr.from, tr.end)
		return v, ev
	case st.ok && st.newestP <= alpha && math.Abs(math.Expm1(st.newestD)) >= o.Tolerance:
		v.Change, v.Method, v.Since, v.P = Outlier, MethodOutlier, n-1, st.newestP
		v.Ratio = math.Exp(st.newestD)
		v.Baseline, v.After = st.baseline, []int{n - 1}
		if !slices.Contains(v.Outliers, n-1) {
			v.Outliers = append(v.Outliers, n-1)
		}
	}
	return v, ev
}

// normalScore is the standard normal quantile with the same tail as
// Student's t with df degrees of freedom at t, signed as t.
func normalScore(t, df float64) float64 {
	p := studentTwoSided(t, df) / 2
	z := -normalQuantile(max(p, 1e-300))
	if t < 0 {
		return -z
	}
	return z
}

// normalQuantile is the standard normal's quantile of p (by bisection on
// the complementary error function).
func normalQuantile(p float64) float64 {
	lo, hi := -40.0, 40.0
	for range 200 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// verdict names a change of ratio beyond the tolerance.
func verdict(ratio float64, lowerIsBetter bool, o Options) Change {
	if math.Abs(ratio-1) < o.Tolerance || math.IsNaN(ratio) {
		return Steady
	}
	if (ratio > 1) == lowerIsBetter {
		return Regressed
	}
	return Improved
}

// changeState is the level since the most recent change point against
// the level before it (since the change point before), one-offs left out
// of both: the verdict (empty Change within the tolerance) with the
// Welch t of their means and its degrees of freedom; the verdict's P is
// that t's p-value.
func changeState(y []float64, cps []changePoint, base int, lowerIsBetter bool, o Options) (v Verdict, t, df float64) {
	last := cps[len(cps)-1]
	from := base
	if len(cps) > 1 {
		from = cps[len(cps)-2].at
	}
	before, after := withoutOneOffs(y, span(from, last.at), o.Tolerance), withoutOneOffs(y, span(last.at, len(y)), o.Tolerance)
	b, a := pick(y, before), pick(y, after)
	d := mean(a) - mean(b)
	c := verdict(math.Exp(d), lowerIsBetter, o)
	if c == Steady || len(a) < 2 || len(b) < 2 {
		return Verdict{}, 0, 0
	}
	va, vb := variance(a)/float64(len(a)), variance(b)/float64(len(b))
	se := max(math.Sqrt(va+vb), 1e-9)
	df = max(1, (va+vb)*(va+vb)/(va*va/float64(len(a)-1)+vb*vb/float64(len(b)-1)+1e-300))
	t = d / se
	q := tQuantile(0.05, df)
	return Verdict{Change: c, Method: MethodChangePoint, Since: last.at, Ratio: math.Exp(d),
		Low: math.Exp(d - q*se), High: math.Exp(d + q*se), P: studentTwoSided(t, df), Baseline: before, After: after}, t, df
}

// withoutOneOffs is idx without the runs oneOffs finds among them.
func withoutOneOffs(y []float64, idx []int, tolerance float64) []int {
	odd := oneOffs(y, idx, tolerance)
	return slices.DeleteFunc(idx, func(i int) bool { return slices.Contains(odd, i) })
}

func span(from, to int) []int {
	out := make([]int, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func pick(x []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = x[j]
	}
	return out
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func variance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return ss / float64(len(x)-1)
}

func stddev(x []float64) float64 { return math.Sqrt(variance(x)) }

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
