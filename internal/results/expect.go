package results

import (
	"fmt"
	"strconv"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Check is one expectation held against the figures.
type Check struct {
	Expectation benchv1.Expectation
	// Value is the figure (median over counted repetitions) and Unit its unit.
	Value float64
	Unit  string
	// Baseline is the baseline's figure, for relative expectations; a
	// history's is the median of BaselineRuns runs' medians.
	Baseline     float64
	BaselineRuns int
	// Met tells whether it holds; Problem says why not, or what is missing.
	Met     bool
	Problem string
}

// Describe says what was checked, in words: "randread read_iops = 41,235 IOPS
// (at least 1000)".
func (c Check) Describe() string {
	e := c.Expectation
	what := e.Test + " " + e.Metric
	if e.MessageSize != nil {
		what += " at " + strconv.FormatInt(*e.MessageSize, 10) + " B"
	}
	if c.Problem != "" && c.Value == 0 && c.Unit == "" {
		return what + ": " + c.Problem
	}
	figure := fmt.Sprintf("%s = %s %s", what, strconv.FormatFloat(c.Value, 'g', 6, 64), c.Unit)
	base, owner := "baseline "+string(e.Relative.GetBaseline()), "baseline "+string(e.Relative.GetBaseline())+"'s"
	if e.Relative != nil && e.Relative.History != nil {
		base = fmt.Sprintf("the median of its last %d run(s)", c.BaselineRuns)
		owner = fmt.Sprintf("its last %d run(s)' median", c.BaselineRuns)
	}
	switch {
	case e.Relative != nil && (e.Relative.AtLeast != nil || e.Relative.AtMost != nil):
		figure += fmt.Sprintf(" (%sx %s %s; %s)", ratioText(c.Value, c.Baseline), owner,
			strconv.FormatFloat(c.Baseline, 'g', 6, 64), ratioBounds(e.Relative))
	case e.Relative != nil:
		figure += fmt.Sprintf(" (%s: %s, tolerance %s)", base, strconv.FormatFloat(c.Baseline, 'g', 6, 64), tolerance(e.Relative))
	case e.AtLeast != nil && e.AtMost != nil:
		figure += fmt.Sprintf(" (between %g and %g)", *e.AtLeast, *e.AtMost)
	case e.AtLeast != nil:
		figure += fmt.Sprintf(" (at least %g)", *e.AtLeast)
	case e.AtMost != nil:
		figure += fmt.Sprintf(" (at most %g)", *e.AtMost)
	}
	if c.Problem != "" {
		figure += ": " + c.Problem
	}
	return figure
}

// ErrNoBaseline is returned by a baseline lookup that finds no finished
// baseline run.
var ErrNoBaseline = fmt.Errorf("no finished baseline")

// ErrNoHistory is returned by a history lookup that finds no earlier run
// of the figure (or no database to look in); it is an ErrNoBaseline.
var ErrNoHistory = fmt.Errorf("%w: no earlier runs of the figure in the results database", ErrNoBaseline)

// Baselines look up what relative expectations compare with.
type Baselines struct {
	// Named returns the summaries of a named baseline run; ErrNoBaseline:
	// it has not finished (or does not exist).
	Named func(name string) ([]Summary, error)
	// History returns the median of the expectation's figure over its
	// newest runs earlier runs (each run's median), and how many there
	// were; ErrNoBaseline: none yet.
	History func(e benchv1.Expectation, runs int) (float64, int, error)
}

// Evaluate holds every expectation against the summaries of a run.
func Evaluate(exps []benchv1.Expectation, summaries []Summary, baselines Baselines) ([]Check, error) {
	var out []Check
	for _, e := range exps {
		c := Check{Expectation: e}
		s, ok := Figure(summaries, e.Test, e.Metric, e.MessageSize)
		if !ok {
			c.Problem = "the run has no such figure"
			out = append(out, c)
			continue
		}
		c.Value, c.Unit = s.Stats.Median, s.Unit
		switch {
		case e.Relative != nil && e.Relative.History != nil:
			if baselines.History == nil {
				return nil, ErrNoBaseline
			}
			v, n, err := baselines.History(e, int(max(1, e.Relative.History.Runs)))
			if err != nil {
				return nil, err
			}
			c.Baseline, c.BaselineRuns = v, n
			c.Met, c.Problem = relative(e, c.Value, c.Baseline)
		case e.Relative != nil:
			base, err := baselines.Named(string(e.Relative.Baseline))
			if err != nil {
				return nil, err
			}
			b, ok := Figure(base, e.Test, e.Metric, e.MessageSize)
			if !ok {
				c.Problem = "the baseline has no such figure"
				break
			}
			c.Baseline = b.Stats.Median
			c.Met, c.Problem = relative(e, c.Value, c.Baseline)
		default:
			c.Met = true
			if e.AtLeast != nil && c.Value < *e.AtLeast {
				c.Met, c.Problem = false, fmt.Sprintf("below %g", *e.AtLeast)
			}
			if e.AtMost != nil && c.Value > *e.AtMost {
				c.Met, c.Problem = false, fmt.Sprintf("above %g", *e.AtMost)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// relative compares with the baseline: the ratio within its bounds, or
// else within the tolerance in the worse direction.
func relative(e benchv1.Expectation, value, base float64) (bool, string) {
	if r := e.Relative; r.AtLeast != nil || r.AtMost != nil {
		if !(base > 0) {
			return false, "the baseline's figure is not above 0: no ratio"
		}
		ratio := value / base
		if r.AtLeast != nil && ratio < *r.AtLeast {
			return false, fmt.Sprintf("%sx the baseline, below %gx", ratioText(value, base), *r.AtLeast)
		}
		if r.AtMost != nil && ratio > *r.AtMost {
			return false, fmt.Sprintf("%sx the baseline, above %gx", ratioText(value, base), *r.AtMost)
		}
		return true, ""
	}
	tol, err := strconv.ParseFloat(strings.TrimSuffix(tolerance(e.Relative), "%"), 64)
	if err != nil {
		return false, "tolerance " + e.Relative.Tolerance + " is not a percentage"
	}
	lower := LowerIsBetter(e.Metric)
	switch e.Relative.Direction {
	case benchv1.LowerIsBetter:
		lower = true
	case benchv1.HigherIsBetter:
		lower = false
	}
	change := 0.0
	if base != 0 {
		change = (value - base) / base * 100
	}
	if lower && value > base*(1+tol/100) {
		return false, fmt.Sprintf("%.1f%% higher than the baseline (lower is better)", change)
	}
	if !lower && value < base*(1-tol/100) {
		return false, fmt.Sprintf("%.1f%% lower than the baseline (higher is better)", -change)
	}
	return true, ""
}

// ratioText is value / base to 3 significant digits.
func ratioText(value, base float64) string {
	if !(base > 0) {
		return "?"
	}
	return strconv.FormatFloat(value/base, 'g', 3, 64)
}

// ratioBounds says a relative expectation's ratio bounds: "at least 2.6x".
func ratioBounds(r *benchv1.RelativeExpectation) string {
	switch {
	case r.AtLeast != nil && r.AtMost != nil:
		return fmt.Sprintf("between %gx and %gx", *r.AtLeast, *r.AtMost)
	case r.AtLeast != nil:
		return fmt.Sprintf("at least %gx", *r.AtLeast)
	}
	return fmt.Sprintf("at most %gx", *r.AtMost)
}

func tolerance(r *benchv1.RelativeExpectation) string {
	if r.Tolerance == "" {
		return "5%"
	}
	return r.Tolerance
}

// Figure picks one figure of a run: the test's metric at the message size, or
// without a size, the summary figure — the smallest size for lower-is-better
// metrics (latency), the peak median otherwise (bandwidth).
func Figure(summaries []Summary, test, metric string, size *int64) (Summary, bool) {
	var best Summary
	found := false
	for _, s := range summaries {
		if s.Test != test || s.Metric != metric {
			continue
		}
		sz, hasSize := msgSize(s)
		if size != nil {
			if hasSize && sz == *size {
				return s, true
			}
			continue
		}
		if !found {
			best, found = s, true
			continue
		}
		bsz, _ := msgSize(best)
		if LowerIsBetter(metric) {
			if sz > 0 && (bsz == 0 || sz < bsz) {
				best = s
			}
		} else if s.Stats.Median > best.Stats.Median {
			best = s
		}
	}
	return best, found
}

func msgSize(s Summary) (int64, bool) {
	v, err := strconv.ParseInt(s.Labels[LabelMsgSize], 10, 64)
	return v, err == nil
}
