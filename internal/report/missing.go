package report

// Missing is a run a report was meant to cover and does not: a campaign's
// benchmark that failed, or a cell that never ran its benchmarks (its pool
// or tuning failed).
type Missing struct {
	// Name is the benchmark's name.
	Name string
	// Kind is its kind, when it exists.
	Kind string
	// Cell is its campaign cell, pool/tuning.
	Cell string
	// State is the benchmark's state, or "not created".
	State string
	// Reason says why, in the benchmark's (or the cell's) words.
	Reason string
}

// missingGrid is the table of runs the report lacks, nil when none.
func missingGrid(missing []Missing) *grid {
	if len(missing) == 0 {
		return nil
	}
	g := &grid{header: []string{"benchmark", "kind", "cell", "state", "why"}, right: make([]bool, 5)}
	for _, m := range missing {
		g.add(m.Name, orDash(m.Kind), orDash(m.Cell), orDash(m.State), orDash(truncateRunes(m.Reason, 400)))
	}
	return g
}

// missingNote heads the table of missing runs.
const missingNote = "These benchmarks of the campaign are not in this report: they failed, or their cell failed before they were made. Their figures are left out of every table and plot."

// truncateRunes cuts s to at most n runes, marking the cut.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
