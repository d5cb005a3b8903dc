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
	// TooFew: the history is too short to tell.
	TooFew Change = "TooFewRuns"
)

// Options tune a check; zero fields take the defaults.
type Options struct {
	// Tolerance is the smallest relative change that counts (default 2 %):
	// a significant change smaller than that is Steady.
	Tolerance float64
	// Alpha is each method's significance level (DefaultAlpha).
	Alpha float64
	// Window is how many runs before the new one the step compares it with
	// (default 20), none before the last change point.
	Window int
	// MinRuns is the fewest runs before the new one that a step needs
	// (DefaultMinRuns).
	MinRuns int
	// Recent: a change point counts for the new run when it is one of the
	// first Recent runs after it (default 3).
	Recent int
	// Permutations test a change point (default 999).
	Permutations int
}

func (o Options) withDefaults() Options {
	if o.Tolerance == 0 {
		o.Tolerance = 0.02
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Window == 0 {
		o.Window = 20
	}
	if o.MinRuns == 0 {
		o.MinRuns = DefaultMinRuns
	}
	if o.Recent == 0 {
		o.Recent = 3
	}
	if o.Permutations == 0 {
		o.Permutations = 999
	}
	return o
}

// DefaultAlpha is each method's significance level by default.
const DefaultAlpha = 0.002

// DefaultMinRuns is the fewest earlier runs a check needs by default.
const DefaultMinRuns = 4

// Verdict is a check's finding about the newest run of a series.
type Verdict struct {
	Change Change
	// Method is "step" or "change point" (empty when Steady or TooFew).
	Method string
	// Ratio is the new level over the baseline: the new run's median over
	// the baseline runs' mean (step), or the mean after the change point
	// over the mean before it.
	Ratio float64
	// P is the method's p-value.
	P float64
	// Baseline and After are the indexes of the runs compared: the
	// baseline's, and those the new level is measured on.
	Baseline, After []int
}

// String says what the check found in a sentence's words.
func (v Verdict) String() string {
	switch v.Change {
	case TooFew:
		return "too few earlier runs to tell"
	case Steady:
		return "steady against its history"
	}
	return fmt.Sprintf("%s %+.1f%% (%s, p = %.3g, %d run(s) against %d)", v.Change, 100*(v.Ratio-1), v.Method, v.P, len(v.After), len(v.Baseline))
}

// Check tells whether the last point of series (run medians, oldest first)
// changed against the ones before. lowerIsBetter says which way is a
// regression.
//
// First, change points: if the most recent one (E-divisive, permutation
// test) has the new run among the first Recent runs after it, that change
// is the verdict. Else a step: the last k runs (k = 1..Recent, the new one
// among them) against the Window runs before them, since the last change
// point before those, by Student's t; the smallest p-value times Recent
// (Bonferroni) must be at most Alpha.
func Check(series []float64, lowerIsBetter bool, opts Options) Verdict {
	o := opts.withDefaults()
	n := len(series)
	if n < 2 || slices.ContainsFunc(series, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 }) {
		return Verdict{Change: TooFew}
	}
	base := max(0, n-50)
	cp, found := lastChange(series[base:], o.Alpha, o.Permutations)
	cp.at += base
	if found && n-cp.at <= o.Recent {
		before := span(max(base, cp.at-o.Window), cp.at)
		after := span(cp.at, n)
		ratio := mean(pick(series, after)) / mean(pick(series, before))
		if v := verdict(ratio, lowerIsBetter, o); v != Steady {
			return Verdict{Change: v, Method: "change point", Ratio: ratio, P: cp.p, Baseline: before, After: after}
		}
	}
	best := Verdict{Change: TooFew}
	for k := 1; k <= o.Recent; k++ {
		from := n - k - o.Window
		if found && cp.at <= n-k && cp.at > from {
			from = cp.at // an older change: the baseline starts after it
		}
		before, after := span(max(0, from), n-k), span(n-k, n)
		if len(before) < o.MinRuns {
			break
		}
		b, a := pick(series, before), pick(series, after)
		ratio := mean(a) / mean(b)
		p := min(1, welchP(a, b)*float64(o.Recent))
		if best.Change == TooFew || p < best.P {
			best = Verdict{Change: Steady, Method: "step", Ratio: ratio, P: p, Baseline: before, After: after}
		}
	}
	if best.Change == Steady && best.P <= o.Alpha {
		if v := verdict(best.Ratio, lowerIsBetter, o); v != Steady {
			best.Change = v
			return best
		}
	}
	if best.Change == Steady {
		best.Method = ""
	}
	return best
}

// welchP is the two-sided p-value of Student's t between the means of a
// (the recent runs, one or more) and b, with b's variance for both (one
// recent run has none of its own): a prediction interval when a is one run.
func welchP(a, b []float64) float64 {
	ma, mb, s := mean(a), mean(b), stddev(b)
	if s == 0 {
		if ma == mb {
			return 1
		}
		return 0
	}
	t := (ma - mb) / (s * math.Sqrt(1/float64(len(a))+1/float64(len(b))))
	return studentTwoSided(t, float64(len(b)-1))
}

// verdict names a significant change of ratio beyond the tolerance.
func verdict(ratio float64, lowerIsBetter bool, o Options) Change {
	if math.Abs(ratio-1) < o.Tolerance || math.IsNaN(ratio) {
		return Steady
	}
	if (ratio > 1) == lowerIsBetter {
		return Regressed
	}
	return Improved
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

func stddev(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}
