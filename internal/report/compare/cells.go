package compare

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
