package compare

import (
	"slices"

	"github.com/benchwright/benchwright/internal/interference"
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
	// Beside is its run's mark (Run.Beside): the cells that ran on its
	// machine at the same time, its repetitions that others disturbed.
	Beside interference.Mark
}

// WithBeside are cells with the marks of their runs (the run of the
// cell's benchmark); cells without a run keep none.
func WithBeside(cells []Cell, runs []Run) []Cell {
	out := slices.Clone(cells)
	for i, c := range out {
		if r := slices.IndexFunc(runs, func(r Run) bool { return r.Benchmark == c.Name && r.Beside.Marked() }); r >= 0 {
			out[i].Beside = runs[r].Beside
		}
	}
	return out
}

// Succeeded says whether the cell's benchmark has figures in the report.
func (c Cell) Succeeded() bool { return c.State == "Succeeded" }

// FailedCells counts the cells without figures.
func FailedCells(cells []Cell) int {
	n := 0
	for _, c := range cells {
		if !c.Succeeded() {
			n++
		}
	}
	return n
}
