package benchmath

import (
	"math"
	"slices"
)

// AdjustBH are the Benjamini-Hochberg adjusted p-values of ps: deciding
// the ones at most q keeps the expected share of false discoveries among
// those decided at most q (for independent or positively dependent tests).
// The adjusted p of the i-th smallest of m is min over j >= i of
// p_(j)·m/j, at most 1. NaN entries (no test) stay NaN and are not counted
// in m.
func AdjustBH(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var tested []int
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			tested = append(tested, i)
		}
	}
	slices.SortStableFunc(tested, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	m := float64(len(tested))
	least := 1.0
	for rank := len(tested); rank >= 1; rank-- {
		i := tested[rank-1]
		least = min(least, ps[i]*m/float64(rank))
		out[i] = max(least, 0)
	}
	return out
}

// Table decides the comparisons of one table together: each verdict's
// AdjustedP is its p adjusted over the table (AdjustBH), Decided says
// whether that is at most its Alpha, and Family is the number of
// comparisons adjusted over. An undecided verdict's Need is the
// repetitions a side that would decide it at the level its rank in the
// table asks (Alpha·P/AdjustedP), and more than it has. Verdicts without a
// test (zero Verdict) are left as they are.
func Table(vs []Verdict) []Verdict {
	out := slices.Clone(vs)
	ps := make([]float64, len(out))
	family := 0
	for i, v := range out {
		ps[i] = math.NaN()
		if v.tested() {
			ps[i] = v.P
			family++
		}
	}
	for i, adj := range AdjustBH(ps) {
		if math.IsNaN(adj) {
			continue
		}
		v := &out[i]
		v.AdjustedP, v.Family = adj, family
		v.Decided = adj <= v.Alpha
		v.Need = 0
		if !v.Decided {
			level := v.Alpha
			if adj > 0 {
				level = v.Alpha * v.P / adj
			}
			v.Need = v.need(level)
		}
	}
	return out
}
