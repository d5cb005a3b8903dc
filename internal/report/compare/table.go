package compare

import (
	"github.com/benchwright/benchwright/internal/results"
)

// RunFigure is one figure of one run: a test's metric, at a message size where the
// test has them, over the run's counted repetitions.
type RunFigure struct {
	Run     int // index of the run
	Test    string
	Metric  string
	MsgSize string // bytes; "" for tests without message sizes
	Unit    string
	Stats   results.Stats
}

// Table is every figure of every run, run by run, in the order the samples
// came; only the headline metrics (see results.Headline) unless all is set.
func Table(runs []Run, all bool) []RunFigure {
	var rows []RunFigure
	for i, r := range runs {
		for _, s := range r.Summaries {
			if !all && !results.Headline(s.Metric) {
				continue
			}
			rows = append(rows, RunFigure{Run: i, Test: s.Test, Metric: s.Metric, MsgSize: s.Labels[results.LabelMsgSize],
				Unit: s.Unit, Stats: s.Stats})
		}
	}
	return rows
}
