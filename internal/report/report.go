package report

import (
	"fmt"
	"io"
)

// Options shape a report.
type Options struct {
	// Title heads the report (default "benchwright report").
	Title string
	// Baseline is the index of the run the others are compared with.
	Baseline int
	// All puts every metric in the comparison, not only the headline ones;
	// the figures tables always hold every metric.
	All bool
	// Ratio is how the comparison divides (default RatioSpeedup).
	Ratio Ratio
	// MaxCV marks noisier figures, in percent (default DefaultMaxCV).
	MaxCV float64
	// Cells are a campaign's benchmarks, cell by cell, with how each ended.
	Cells []Cell
}

// Report is what the renderers draw: runs, their figures, the comparison.
type Report struct {
	Title      string
	Runs       []Run
	Rows       []Row // every figure of every run
	Baseline   int
	Comparison []CompareRow // against Runs[Baseline]; nil for one run
	Fits       []Fit        // figures against the numeric labels the runs differ in
	Cells      []Cell       // a campaign's benchmarks, cell by cell
}

// New builds the report of runs.
func New(runs []Run, opts Options) (*Report, error) {
	if len(runs) == 0 {
		return nil, ErrNoRuns
	}
	r := &Report{Title: opts.Title, Runs: runs, Rows: Table(runs, true), Baseline: opts.Baseline, Fits: Fits(runs), Cells: opts.Cells}
	if r.Title == "" {
		r.Title = "benchwright report"
	}
	if len(runs) > 1 {
		cmp, err := CompareWith(runs, opts.Baseline, CompareOptions{All: opts.All, Ratio: opts.Ratio, MaxCV: opts.MaxCV})
		if err != nil {
			return nil, err
		}
		r.Comparison = cmp
	}
	return r, nil
}

// WriteCSV writes every figure of every run (see the package's WriteCSV).
func (r *Report) WriteCSV(w io.Writer) error { return WriteCSV(w, r.Runs, r.Rows) }

// summaryLine says what the report covers.
func (r *Report) summaryLine() string {
	samples := 0
	for _, run := range r.Runs {
		samples += run.Samples
	}
	return fmt.Sprintf("%d run(s), %s counted sample(s). Statistics are over the counted repetitions; warm-up repetitions are left out.",
		len(r.Runs), formatCount(samples))
}
