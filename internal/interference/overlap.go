package interference

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// Rep names one repetition of one run.
type Rep struct {
	// Run is the run's identity (its UID, or any name unique in the input).
	Run        string
	Repetition int
}

func compareReps(a, b Rep) int {
	return cmp.Or(strings.Compare(a.Run, b.Run), cmp.Compare(a.Repetition, b.Repetition))
}

// Window is when a repetition of a run ran on a node, and the machine
// beneath that node.
type Window struct {
	Rep
	Machine, Node string
	Start, End    time.Time
}

// WindowsOf lists a run's windows from its nodes (nodes.json): one per node
// and repetition. A node whose machine is unknown (facts from an older
// manager, a local run) gives none: nothing can be said of it.
func WindowsOf(run string, nodes []results.NodeInfo) []Window {
	var out []Window
	for _, n := range nodes {
		if n.Facts == nil || n.Facts.Machine() == "" {
			continue
		}
		for _, w := range n.Windows {
			out = append(out, Window{Rep: Rep{run, w.Repetition}, Machine: n.Facts.Machine(), Node: n.Hostname, Start: w.Start, End: w.End})
		}
	}
	return out
}

// Overlap is a repetition that ran on a machine while other runs did.
type Overlap struct {
	Rep
	Machine string
	// With are the other runs' repetitions that shared a moment with it
	// on the machine, by run and repetition.
	With []Rep
}

// Overlaps finds the repetitions that shared a moment on one machine with a
// repetition of another run (windows that only touch do not), by run,
// repetition and machine. A run's own repetitions on several nodes of one
// machine do not overlap each other.
func Overlaps(windows []Window) []Overlap {
	byKey := map[Rep]map[string][]Rep{}
	for i, a := range windows {
		for j, b := range windows {
			if i == j || a.Run == b.Run || a.Machine != b.Machine || !a.Start.Before(b.End) || !b.Start.Before(a.End) {
				continue
			}
			if byKey[a.Rep] == nil {
				byKey[a.Rep] = map[string][]Rep{}
			}
			if !slices.Contains(byKey[a.Rep][a.Machine], b.Rep) {
				byKey[a.Rep][a.Machine] = append(byKey[a.Rep][a.Machine], b.Rep)
			}
		}
	}
	var out []Overlap
	for rep, machines := range byKey {
		for m, with := range machines {
			slices.SortFunc(with, compareReps)
			out = append(out, Overlap{Rep: rep, Machine: m, With: with})
		}
	}
	slices.SortFunc(out, func(a, b Overlap) int {
		return cmp.Or(compareReps(a.Rep, b.Rep), strings.Compare(a.Machine, b.Machine))
	})
	return out
}
