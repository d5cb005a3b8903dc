package interference

import (
	"cmp"
	"slices"
)

// Mark is what a report says of one run beside its figures.
type Mark struct {
	// OverlappedWith are the other runs it shared a machine with at the
	// same time; Overlapped its repetitions that did.
	OverlappedWith []string
	Overlapped     []int
	// Disturbed are its repetitions during which others used more than the
	// threshold of a machine's CPU; MaxOthers is the most others used
	// during any of its repetitions, in cores (with Watched false: the
	// sampler's series said nothing).
	Disturbed []int
	MaxOthers float64
	Watched   bool
}

// Marked says whether the run's figures were measured beside others.
func (m Mark) Marked() bool { return len(m.Overlapped) > 0 || len(m.Disturbed) > 0 }

// Marks sums up, per run, what Overlaps and Shares found. A run neither
// names is not in the map.
func Marks(overlaps []Overlap, shares []Share) map[string]Mark {
	out := map[string]Mark{}
	for _, o := range overlaps {
		m := out[o.Run]
		m.Overlapped = insertSorted(m.Overlapped, o.Repetition)
		for _, w := range o.With {
			m.OverlappedWith = insertSorted(m.OverlappedWith, w.Run)
		}
		out[o.Run] = m
	}
	for _, s := range shares {
		m := out[s.Run]
		m.Watched = true
		m.MaxOthers = max(m.MaxOthers, s.Others)
		if s.Disturbed {
			m.Disturbed = insertSorted(m.Disturbed, s.Repetition)
		}
		out[s.Run] = m
	}
	return out
}

// insertSorted adds v to the sorted set s.
func insertSorted[T cmp.Ordered](s []T, v T) []T {
	if i, found := slices.BinarySearch(s, v); !found {
		s = slices.Insert(s, i, v)
	}
	return s
}
