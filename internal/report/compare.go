package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// CompareRow is one figure across runs: each run's median and its speedup
// over the baseline run.
type CompareRow struct {
	Test    string
	Metric  string
	MsgSize string // bytes; "" for tests without message sizes
	Unit    string // the baseline's unit (else the first run's); medians are converted to it
	// LowerIsBetter is set for latencies and durations.
	LowerIsBetter bool
	// Medians are per run, NaN where a run lacks the figure.
	Medians []float64
	// Speedups are per run: baseline/value when lower is better,
	// value/baseline otherwise, so above 1 is better than the baseline
	// ("c3 random read = 2.6x c2"). NaN where a run or the baseline lacks
	// the figure or the baseline's is zero; the baseline's own is 1.
	Speedups []float64
}

// Compare lines up the figures of runs against runs[baseline]: one row per
// test, metric and message size any run has, the baseline's first, then in
// the order the other runs add them. Only the headline metrics (see
// Headline) unless all is set. Runs whose units differ convert exactly
// (MiB/s and MB/s, µs and ms); figures of other units are other rows.
func Compare(runs []Run, baseline int, all bool) ([]CompareRow, error) {
	if baseline < 0 || baseline >= len(runs) {
		return nil, fmt.Errorf("baseline %d out of range: %d run(s)", baseline, len(runs))
	}
	order := append([]int{baseline}, others(len(runs), baseline)...)
	index := map[string]int{}
	var rows []CompareRow
	for _, ri := range order {
		for _, s := range runs[ri].Summaries {
			if !all && !Headline(s.Metric) {
				continue
			}
			size := s.Labels[results.LabelMsgSize]
			key := strings.Join([]string{s.Test, s.Metric, size, dimension(s.Unit)}, "\x00")
			i, ok := index[key]
			if !ok {
				i = len(rows)
				index[key] = i
				rows = append(rows, CompareRow{Test: s.Test, Metric: s.Metric, MsgSize: size, Unit: s.Unit,
					LowerIsBetter: results.LowerIsBetter(s.Metric), Medians: nans(len(runs)), Speedups: nans(len(runs))})
			}
			rows[i].Medians[ri] = convert(s.Stats.Median, s.Unit, rows[i].Unit)
		}
	}
	for i := range rows {
		r := &rows[i]
		for ri := range runs {
			r.Speedups[ri] = speedup(r.Medians[baseline], r.Medians[ri], r.LowerIsBetter)
		}
	}
	return rows, nil
}

// speedup is how many times better value is than base.
func speedup(base, value float64, lowerIsBetter bool) float64 {
	if math.IsNaN(base) || math.IsNaN(value) || base == 0 {
		return math.NaN()
	}
	if lowerIsBetter {
		if value == 0 {
			return math.NaN()
		}
		return base / value
	}
	return value / base
}

// others is 0..n-1 without skip.
func others(n, skip int) []int {
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
