package benchmath

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Verdict is whether a run's repetitions differ from a baseline's, and
// by how much.
type Verdict struct {
	// Base and Value are the repetitions of the baseline and of the run.
	Base, Value int
	// Ratio is the run's median over the baseline's; NaN when the
	// baseline's median is 0.
	Ratio float64
	// Interval is the ratio's confidence interval at Level, around its
	// Hodges-Lehmann estimate; unknown when the repetitions are too few
	// (Interval.Need says how many a side) or the figures not all positive.
	Interval Interval
	// P is the U test's two-sided p, MinP the smallest these sizes allow,
	// Method how it was computed.
	P, MinP float64
	Method  Method
	// AdjustedP is P adjusted over the table's Family of comparisons
	// (Table); P itself for a comparison alone (Family 1).
	AdjustedP float64
	Family    int
	// Decided says the sides differ: AdjustedP is at most Alpha.
	Decided bool
	// Need is, when not decided, the repetitions a side that would decide
	// at the observed change and spread (RepetitionsToDecide): NoChange when
	// the sides show none, MaxRepetitions+1 for "more than that", 0 when
	// decided or unknown (figures not all positive, or too few to spread).
	Need int
	// Spread is the pooled standard deviation of the sides' logs (about
	// the CV, for small ones); NaN when unknown.
	Spread float64
	// Alpha and Level are the options compared with.
	Alpha, Level float64
}

// Compare is the verdict on a run's repetitions against a baseline's,
// as a comparison alone; Table decides a table's comparisons together.
// The figures must be finite, at most MaxRepetitions a side; the ratio's
// interval and Need also take them to be positive.
func Compare(base, value []float64, opts Options) (Verdict, error) {
	if err := opts.validate(); err != nil {
		return Verdict{}, err
	}
	if err := checkSides(base, value); err != nil {
		return Verdict{}, err
	}
	v := Verdict{Base: len(base), Value: len(value), Ratio: math.NaN(), Spread: math.NaN(),
		Interval: noInterval(math.NaN(), 0), Alpha: opts.Alpha, Level: opts.Level, Family: 1}
	if mb := median(base); mb != 0 {
		v.Ratio = median(value) / mb
	}
	u := uTest(value, base)
	v.P, v.MinP, v.Method, v.AdjustedP = u.P, u.MinP, u.Method, u.P
	v.Decided = v.P <= v.Alpha
	if checkPositive(base, value) == nil {
		v.Interval = ratioInterval(base, value, opts.Level)
		v.Spread = logSpread(base, value)
	}
	if !v.Decided {
		v.Need = v.need(v.Alpha)
	}
	return v, nil
}

// tested tells whether v holds a test (Compare made it).
func (v Verdict) tested() bool { return v.Base > 0 && v.Value > 0 }

// need is the repetitions a side that would decide v at level alpha, more
// than it has; 0 when unknown.
func (v Verdict) need(alpha float64) int {
	if math.IsNaN(v.Spread) {
		return 0
	}
	n := RepetitionsToDecide(v.Interval.Estimate, v.Spread, alpha)
	if n > 0 && n <= max(v.Base, v.Value) {
		n = max(v.Base, v.Value) + 1 // the spread observed was kinder than this run's luck
	}
	return n
}

// Inverse is the verdict on the baseline against the run: the ratio and
// its interval turned over (a speedup of a lower-is-better figure).
func (v Verdict) Inverse() Verdict {
	w := v
	w.Base, w.Value = v.Value, v.Base
	w.Ratio = 1 / v.Ratio
	if v.Interval.Known() {
		w.Interval = v.Interval.inverse()
	} else {
		w.Interval.Estimate = 1 / v.Interval.Estimate
	}
	return w
}

// Mark is benchstat's: "~" for a comparison not decided, "" otherwise.
func (v Verdict) Mark() string {
	if v.Decided {
		return ""
	}
	return "~"
}

// String says the verdict in a line: "~ not decided: p=0.10 with 3 vs 3;
// 6 a side would decide a change of 8.5 % at this spread", or "different:
// +9.8 % [+8.6 % to +11 %] (95 % interval), p=1.1e-05 with 10 vs 10".
func (v Verdict) String() string {
	if !v.tested() {
		return "not compared"
	}
	test := v.Evidence()
	if !v.Decided {
		return "~ not decided: " + test + v.needText()
	}
	out := "different: " + formatChange(v.Ratio)
	if iv := v.Interval; iv.Known() {
		out += fmt.Sprintf(" [%s to %s] (%s %% interval)", formatChange(iv.Lo), formatChange(iv.Hi), formatLevel(v.Level))
	}
	out += ", " + test
	if need := v.Interval.Need; need > 0 {
		out += fmt.Sprintf("; a %s %% interval needs %d a side", formatLevel(v.Level), need)
	}
	return out
}

// Evidence is the test's p (and its adjusted one where that differs) and
// the repetitions it had: "p=0.10 with 3 vs 3", "p=0.0079 (0.08 after FDR
// over 10) with 5 vs 5".
func (v Verdict) Evidence() string {
	out := "p=" + FormatP(v.P)
	if v.Family > 1 && FormatP(v.AdjustedP) != FormatP(v.P) {
		out += fmt.Sprintf(" (%s after FDR over %d)", FormatP(v.AdjustedP), v.Family)
	}
	return out + fmt.Sprintf(" with %d vs %d", v.Value, v.Base)
}

// needText says what would decide an undecided verdict.
func (v Verdict) needText() string {
	change := strings.TrimPrefix(strings.TrimPrefix(formatChange(v.Interval.Estimate), "+"), "-")
	switch {
	case v.Need == NoChange:
		return "; the sides show no change to decide"
	case v.Need > MaxRepetitions:
		return fmt.Sprintf("; more than %d a side would be needed to decide a change of %s at this spread", MaxRepetitions, change)
	case v.Need > 0:
		return fmt.Sprintf("; %d a side would decide a change of %s at this spread", v.Need, change)
	case v.MinP > v.Alpha:
		return fmt.Sprintf("; %d vs %d can never give p at most %s", v.Value, v.Base, FormatP(v.Alpha))
	}
	return ""
}

// formatChange is a ratio as a signed percent change: 1.094 -> "+9.4 %".
func formatChange(ratio float64) string {
	if math.IsNaN(ratio) || math.IsInf(ratio, 0) {
		return "?"
	}
	c := 100 * (ratio - 1)
	sign := "+"
	if c < 0 {
		sign = "-"
	}
	return sign + formatPercent(math.Abs(c)) + " %"
}

// formatPercent writes a percentage with two significant digits and at
// most two decimals: 250 -> "250", 12.6 -> "13", 9.43 -> "9.4", 0.054 ->
// "0.05", 0.00005 -> "0.00".
func formatPercent(x float64) string {
	decimals := 2
	switch { // the bounds as rounded: 9.96 -> "10", 0.996 -> "1.0"
	case x >= 9.95:
		decimals = 0
	case x >= 0.995:
		decimals = 1
	}
	return strconv.FormatFloat(x, 'f', decimals, 64)
}

// formatLevel writes a level as a percentage: 0.95 -> "95", 0.999 -> "99.9".
func formatLevel(level float64) string {
	return strconv.FormatFloat(100*level, 'g', 4, 64)
}

// FormatP writes a p-value: two decimals from 0.01 on, else two
// significant digits ("0.10", "0.0022").
func FormatP(p float64) string {
	if p >= 0.01 {
		return strconv.FormatFloat(p, 'f', 2, 64)
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// median is the median of xs (not empty).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	return s[(n-1)/2]/2 + s[n/2]/2 // no overflow of huge figures
}
