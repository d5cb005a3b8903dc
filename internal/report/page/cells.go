package page

import (
	"slices"
	"strconv"

	"github.com/benchwright/benchwright/internal/interference"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// cellsGrid is the table of a campaign's cells, nil when none.
func cellsGrid(cells []compare.Cell) *grid {
	if len(cells) == 0 {
		return nil
	}
	expects := slices.ContainsFunc(cells, func(c compare.Cell) bool { return c.Expectations != "" })
	history := slices.ContainsFunc(cells, func(c compare.Cell) bool { return c.History != "" })
	beside := slices.ContainsFunc(cells, func(c compare.Cell) bool { return c.Beside.Marked() })
	g := &grid{header: []string{"pool", "tuning", "benchmark", "kind", "state", "result"}}
	if expects {
		g.header = append(g.header, colExpectations)
	}
	if history {
		g.header = append(g.header, colHistory)
	}
	if beside {
		g.header = append(g.header, colBeside)
	}
	g.right = make([]bool, len(g.header))
	for _, c := range cells {
		row := []string{orDash(c.Pool), orDash(c.Tuning), orDash(c.Benchmark), orDash(c.Kind), orDash(c.State), orDash(truncateRunes(c.Result, 400))}
		if expects {
			row = append(row, orDash(truncateRunes(c.Expectations, 600)))
		}
		if history {
			row = append(row, orDash(truncateRunes(c.History, 600)))
		}
		if beside {
			row = append(row, orDash(truncateRunes(besideText(c.Beside), 600)))
		}
		g.add(row...)
	}
	return g
}

// The cells table's columns that a cell can fail in.
const (
	colExpectations = "expectations"
	colHistory      = "against its history"
	colBeside       = "beside other runs"
)

// cellFailsAt says whether the cell's entry in the cells table's column
// col (by header) is a failure: a failed cell in every column, expectations
// that do not hold, a run that regressed.
func cellFailsAt(c compare.Cell, column string) bool {
	return !c.Succeeded() || column == colExpectations && c.ExpectationsFailed || column == colHistory && c.Regressed
}

// cellsNote heads the table of cells.
func cellsNote(cells []compare.Cell) string {
	if n := compare.FailedCells(cells); n > 0 {
		return "Every benchmark of the campaign, cell by cell. " + strconv.Itoa(n) + " of them failed, or their cell failed before they were made: their figures are in no table or plot below." + besideNote(cells)
	}
	return "Every benchmark of the campaign, cell by cell, with its headline figure." + besideNote(cells)
}

// truncateRunes cuts s to at most n runes, marking the cut.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// besideNote says what the cells table's column beside other runs holds,
// when it has one.
func besideNote(cells []compare.Cell) string {
	if !slices.ContainsFunc(cells, func(c compare.Cell) bool { return c.Beside.Marked() }) {
		return ""
	}
	return " Beside other runs: the cells that ran on the same machine at the same time (their figures may have taken from each other: run the campaign with parallelism: 1, or on pools of their own machines), and the repetitions during which processes other than the run's own used more than " +
		cores(interference.DefaultThreshold) + " of its machine's CPU."
}
