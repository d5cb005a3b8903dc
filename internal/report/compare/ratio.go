package compare

import (
	"fmt"
	"math"

	"github.com/benchwright/benchwright/internal/benchmath"
)

// decide sets, for each run of the row but the baseline, its ratio of
// medians to the baseline's, its verdict over both runs' repetitions
// (values: per run, in the row's unit) as a comparison alone, and whether
// either CV is above opts.MaxCV (Noisy). It is the one place where a row's
// statistics are computed; decideTable then decides a printed table's rows
// together. Tables, plots and pages only read the row.
func (r *Row) decide(baseline int, values [][]float64, opts Options) error {
	inverted := r.LowerIsBetter && opts.Ratio == RatioSpeedup
	for ri := range r.Medians {
		r.Speedups[ri] = ratio(r.Medians[baseline], r.Medians[ri], inverted)
		if ri == baseline || math.IsNaN(r.Speedups[ri]) {
			continue
		}
		r.Noisy[ri] = r.CVs[ri] > opts.MaxCV || r.CVs[baseline] > opts.MaxCV
		if len(values[ri]) == 0 || len(values[baseline]) == 0 {
			continue // a summary without its repetitions: nothing to test
		}
		v, err := benchmath.Compare(values[baseline], values[ri], benchmath.DefaultOptions)
		if err != nil {
			return fmt.Errorf("comparing %s %s: %w", r.Test, r.Metric, err)
		}
		if inverted {
			v = v.Inverse()
		}
		r.Verdicts[ri] = v
	}
	return nil
}

// decideTable decides the verdicts of every row of tables together, as one
// printed table: benchmath.Table adjusts their p-values over all of them
// (Benjamini-Hochberg), so that the false discovery rate holds per table.
func decideTable(tables ...[]Row) {
	var all []benchmath.Verdict
	for _, rows := range tables {
		for _, r := range rows {
			all = append(all, r.Verdicts...)
		}
	}
	all = benchmath.Table(all)
	for _, rows := range tables {
		for i := range rows {
			all = all[copy(rows[i].Verdicts, all):]
		}
	}
}

// Family is how many comparisons rows were decided together over (the
// false discovery control's family); 0 when none was tested.
func Family(rows []Row) int {
	for _, r := range rows {
		for i := range r.Verdicts {
			if r.Compared(i) {
				return r.Verdicts[i].Family
			}
		}
	}
	return 0
}

// notCompared is the verdict of a cell without a test: the baseline's own,
// or a run that lacks the figure.
var notCompared = benchmath.Verdict{Ratio: math.NaN(), AdjustedP: math.NaN(), P: math.NaN(),
	Interval: benchmath.Interval{Lo: math.NaN(), Hi: math.NaN(), Estimate: math.NaN()}}

// ratio is value/base, or base/value when inverted (a speedup of a
// lower-is-better figure).
func ratio(base, value float64, inverted bool) float64 {
	if math.IsNaN(base) || math.IsNaN(value) || base == 0 {
		return math.NaN()
	}
	if inverted {
		if value == 0 {
			return math.NaN()
		}
		return base / value
	}
	return value / base
}
