package results

import (
	"slices"
	"time"
)

// Window is when a repetition's tool ran on a node: what tells the runs
// that ran on one machine at the same time.
type Window struct {
	Repetition int       `json:"repetition"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
}

// Overlaps tells whether the two windows share a moment (touching ends do
// not).
func (w Window) Overlaps(o Window) bool { return w.Start.Before(o.End) && o.Start.Before(w.End) }

// MergeWindows adds the windows of added to those of old, an added
// repetition replacing old's window of the same repetition; by repetition.
func MergeWindows(old, added []Window) []Window {
	out := slices.DeleteFunc(slices.Clone(old), func(w Window) bool {
		return slices.ContainsFunc(added, func(a Window) bool { return a.Repetition == w.Repetition })
	})
	out = append(out, added...)
	slices.SortStableFunc(out, func(a, b Window) int { return a.Repetition - b.Repetition })
	return out
}
