package report

import (
	"slices"
	"strconv"
)

// Cell is a benchmark of a campaign's cell, as the campaign left it: the
// report of a campaign lists every one, those it has no figures of too.
type Cell struct {
	// Pool and Tuning are the cell's entries' names.
	Pool, Tuning string
	// Benchmark is the benchmark's entry name; Name its object's name.
	Benchmark, Name string
	// Kind is its kind.
	Kind string
	// State is the benchmark's state, or "not created".
	State string
	// Result is its headline figure, or why it failed.
	Result string
	// Expectations say whether its expectations hold ("hold: ...", "fail:
	// ...", "wait for the baseline"); empty without any.
	Expectations string
	// ExpectationsFailed marks expectations that do not hold.
	ExpectationsFailed bool
	// History is the run against its configuration's earlier runs in the
	// results database ("regressed: ...", "improved: ...", "steady: ...",
	// "not judged: ..."); empty without a results database.
	History string
	// Regressed marks a run that regressed against its history.
	Regressed bool
}

// Succeeded says whether the cell's benchmark has figures in the report.
func (c Cell) Succeeded() bool { return c.State == "Succeeded" }

// cellsGrid is the table of a campaign's cells, nil when none.
func cellsGrid(cells []Cell) *grid {
	if len(cells) == 0 {
		return nil
	}
	expects := slices.ContainsFunc(cells, func(c Cell) bool { return c.Expectations != "" })
	history := slices.ContainsFunc(cells, func(c Cell) bool { return c.History != "" })
	g := &grid{header: []string{"pool", "tuning", "benchmark", "kind", "state", "result"}}
	if expects {
		g.header = append(g.header, colExpectations)
	}
	if history {
		g.header = append(g.header, colHistory)
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
		g.add(row...)
	}
	return g
}

// The cells table's columns that a cell can fail in.
const (
	colExpectations = "expectations"
	colHistory      = "against its history"
)

// cellFailsAt says whether the cell's entry in the cells table's column
// col (by header) is a failure: a failed cell in every column, expectations
// that do not hold, a run that regressed.
func cellFailsAt(c Cell, column string) bool {
	return !c.Succeeded() || column == colExpectations && c.ExpectationsFailed || column == colHistory && c.Regressed
}

// failedCells counts the cells without figures.
func failedCells(cells []Cell) int {
	n := 0
	for _, c := range cells {
		if !c.Succeeded() {
			n++
		}
	}
	return n
}

// cellsNote heads the table of cells.
func cellsNote(cells []Cell) string {
	if n := failedCells(cells); n > 0 {
		return "Every benchmark of the campaign, cell by cell. " + strconv.Itoa(n) + " of them failed, or their cell failed before they were made: their figures are in no table or plot below."
	}
	return "Every benchmark of the campaign, cell by cell, with its headline figure."
}

// truncateRunes cuts s to at most n runes, marking the cut.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
