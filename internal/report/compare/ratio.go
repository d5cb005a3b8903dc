package compare

import (
	"math"

	"github.com/benchwright/benchwright/internal/results"
)

// decide sets, for each run of the row but the baseline, its ratio to the
// baseline, that ratio's interval over both runs' repetitions (values:
// per run, in the row's unit), whether the interval holds 1 (Unclear),
// and whether either CV is above opts.MaxCV (Noisy). It is the one place
// where a row's statistics are computed (With calls it for every table,
// and Along through With): a test of the difference at benchmark sample
// sizes and its intervals belong here, a false-discovery control over the
// table right after With's loop over the rows; tables, plots and pages
// only read the row.
func (r *Row) decide(baseline int, values [][]float64, opts Options) {
	for ri := range r.Medians {
		r.Speedups[ri] = ratio(r.Medians[baseline], r.Medians[ri], r.LowerIsBetter && opts.Ratio == RatioSpeedup)
		if ri == baseline || math.IsNaN(r.Speedups[ri]) {
			continue
		}
		num, den := values[ri], values[baseline]
		if r.LowerIsBetter && opts.Ratio == RatioSpeedup {
			num, den = den, num
		}
		r.Intervals[ri] = results.DefaultBootstrap.Ratio(num, den)
		r.Unclear[ri] = r.Intervals[ri].Contains(1)
		r.Noisy[ri] = r.CVs[ri] > opts.MaxCV || r.CVs[baseline] > opts.MaxCV
	}
}

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
