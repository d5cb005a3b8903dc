package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchwright/benchwright/internal/benchmath"
	"github.com/benchwright/benchwright/internal/results"
)

// Ratio says how a comparison divides a run's figure by the baseline's.
type Ratio string

const (
	// RatioSpeedup divides so that above 1 is better than the baseline:
	// baseline/value for lower-is-better metrics, value/baseline otherwise
	// ("c3 random read = 2.6x c2").
	RatioSpeedup Ratio = "speedup"
	// RatioValue divides each run's figure by the baseline's, as measured
	// ("off-node / on-node latency = 75x").
	RatioValue Ratio = "value"
)

// DefaultMaxCV is the coefficient of variation (percent) above which a
// run's figure is marked too noisy to compare.
const DefaultMaxCV = 10.0

// Options say what a comparison holds and how it divides.
type Options struct {
	// All compares every metric, not only the headline ones (see results.Headline).
	All bool
	// Ratio is RatioSpeedup (the default) or RatioValue.
	Ratio Ratio
	// MaxCV marks figures whose CV is above it, in percent (default
	// DefaultMaxCV).
	MaxCV float64
}

// Row is one figure across runs: each run's median, and its ratio to
// the baseline's with the ratio's uncertainty.
type Row struct {
	Test    string
	Metric  string
	MsgSize string // bytes; "" for tests without message sizes
	Unit    string // the baseline's unit (else the first run's); medians are converted to it
	// LowerIsBetter is set for latencies and durations.
	LowerIsBetter bool
	// Ratio is how Speedups divide.
	Ratio Ratio
	// Medians are per run, NaN where a run lacks the figure.
	Medians []float64
	// Speedups are per run, the ratio of its median to the baseline's as
	// Ratio says (for RatioSpeedup above 1 is better than the baseline).
	// NaN where a run or the baseline lacks the figure or the divisor is
	// zero; the baseline's own is 1.
	Speedups []float64
	// Verdicts are per run: the U test of its repetitions against the
	// baseline's, decided over the row's table (benchmath.Table), its p,
	// the ratio's interval where the repetitions allow one, and for an
	// undecided one the repetitions that would decide; oriented as
	// Speedups. Not compared (see Compared) for the baseline itself and
	// where a run lacks the figure.
	Verdicts []benchmath.Verdict
	// CVs are per run, in percent; NaN where a run lacks the figure.
	CVs []float64
	// Noisy marks a run whose CV or the baseline's is above MaxCV.
	Noisy []bool
	// MaxCV is the comparison's bound on CVs, in percent.
	MaxCV float64
}

// Better tells whether run i's figure is better than the baseline's
// (known is false without a ratio).
func (r Row) Better(i int) (better, known bool) {
	s := r.Speedups[i]
	if math.IsNaN(s) {
		return false, false
	}
	if r.Ratio == RatioValue && r.LowerIsBetter {
		return s <= 1, true
	}
	return s >= 1, true
}

// Compared tells whether run i has a verdict against the baseline.
func (r Row) Compared(i int) bool { return r.Verdicts[i].Base > 0 }

// Undecided tells whether run i's difference from the baseline is not
// decided (benchstat's ~): compared, and its adjusted p above alpha.
func (r Row) Undecided(i int) bool { return r.Compared(i) && !r.Verdicts[i].Decided }

// Compare lines up the headline figures (every metric with all) of runs
// against runs[baseline] as speedups; see With.
func Compare(runs []Run, baseline int, all bool) ([]Row, error) {
	return With(runs, baseline, Options{All: all})
}

// With lines up the figures of runs against runs[baseline]: one row
// per test, metric and message size any run has, the baseline's first, then
// in the order the other runs add them. Runs whose units differ convert
// exactly (MiB/s and MB/s, µs and ms); figures of other units are other
// rows. Each ratio comes with its verdict over the repetitions, the rows
// decided together as one table, and a mark when a CV is above opts.MaxCV.
func With(runs []Run, baseline int, opts Options) ([]Row, error) {
	if baseline < 0 || baseline >= len(runs) {
		return nil, fmt.Errorf("baseline %d out of range: %d run(s)", baseline, len(runs))
	}
	switch opts.Ratio {
	case "":
		opts.Ratio = RatioSpeedup
	case RatioSpeedup, RatioValue:
	default:
		return nil, fmt.Errorf("unknown ratio %q: %s or %s", opts.Ratio, RatioSpeedup, RatioValue)
	}
	if opts.MaxCV <= 0 {
		opts.MaxCV = DefaultMaxCV
	}
	order := append([]int{baseline}, Others(len(runs), baseline)...)
	index := map[string]int{}
	var rows []Row
	values := map[int][][]float64{} // per row, per run: the repetitions' values in the row's unit
	for _, ri := range order {
		for _, s := range runs[ri].Summaries {
			if !opts.All && !results.Headline(s.Metric) {
				continue
			}
			size := s.Labels[results.LabelMsgSize]
			key := strings.Join([]string{s.Test, s.Metric, size, Quantity(s.Unit)}, "\x00")
			i, ok := index[key]
			if !ok {
				i = len(rows)
				index[key] = i
				rows = append(rows, newRow(s, size, len(runs), opts))
				values[i] = make([][]float64, len(runs))
			}
			r := &rows[i]
			r.Medians[ri], r.CVs[ri] = Convert(s.Stats.Median, s.Unit, r.Unit), s.Stats.CV
			for _, v := range s.Values {
				values[i][ri] = append(values[i][ri], Convert(v, s.Unit, r.Unit))
			}
		}
	}
	for i := range rows {
		if err := rows[i].decide(baseline, values[i], opts); err != nil {
			return nil, err
		}
	}
	decideTable(rows)
	return rows, nil
}

// newRow is the row of summary s's figure, with nothing yet.
func newRow(s results.Summary, size string, runs int, opts Options) Row {
	r := Row{Test: s.Test, Metric: s.Metric, MsgSize: size, Unit: s.Unit, Ratio: opts.Ratio, MaxCV: opts.MaxCV,
		LowerIsBetter: results.LowerIsBetter(s.Metric), Medians: nans(runs), Speedups: nans(runs), CVs: nans(runs),
		Verdicts: make([]benchmath.Verdict, runs), Noisy: make([]bool, runs)}
	for i := range r.Verdicts {
		r.Verdicts[i] = notCompared
	}
	return r
}

// Others is 0..n-1 without skip.
func Others(n, skip int) []int {
	out := make([]int, 0, n)
	for i := range n {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

func nans(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}
