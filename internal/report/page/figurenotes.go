package page

import (
	"fmt"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// limitedFigures is a run's figures grid (figuresGrid), each test during
// which the run's nodes reached a limit marked ("randread-4k [1]"), and
// the footnotes that say which: "[1] randread-4k: vda at 100 % utilisation".
func limitedFigures(r compare.Run, rows []compare.RunFigure, upper bool) (*grid, []string) {
	g := figuresGrid(rows, upper)
	by := compare.TestLimits(compare.LimitsOf(r))
	if len(by) == 0 {
		return g, nil
	}
	num := map[string]int{}
	var notes []string
	for i, row := range rows {
		text, ok := by[row.Test]
		if !ok {
			continue
		}
		n, seen := num[row.Test]
		if !seen {
			n = len(notes) + 1
			num[row.Test] = n
			notes = append(notes, fmt.Sprintf("[%d] %s: %s.", n, row.Test, text))
		}
		g.rows[i][0] += fmt.Sprintf(" [%d]", n)
	}
	return g, notes
}
