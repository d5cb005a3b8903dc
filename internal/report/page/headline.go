package page

import (
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// headlineHeading heads a single run's headline figures.
const headlineHeading = "Headline figures"

// headlineNote says what the headline figures are.
const headlineNote = "The run's headline figures (as `benchwright run` prints them), median over the counted repetitions; every figure is under Figures per run."

// headlineGrid is a lone run's headline figures, the report's answer, and
// the footnotes of the limits its nodes reached: nil for several runs
// (their comparisons come first) or none.
func (r *Report) headlineGrid() (*grid, []string) {
	if len(r.Runs) != 1 {
		return nil, nil
	}
	var rows []compare.RunFigure
	for _, row := range rowsOf(r.Rows, 0) {
		if results.Headline(row.Metric) {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return limitedFigures(r.Runs[0], rows, false)
}
