package benchmath

import (
	"slices"
	"sync"
)

// The rank-sum statistic is kept doubled, so that mid-ranks of ties are
// integers: a tie group of t values from position i (0-based) in the
// pooled order has the doubled mid-rank 2i+t+1.

// tieGroups are the sizes of the pooled values' tie groups, in ascending
// order of value; the doubled mid-rank of each value of x; and whether any
// values tie.
func tieGroups(x, y []float64) (sizes []int, xRanks2 []int, ties bool) {
	type v struct {
		val float64
		inX bool
	}
	pooled := make([]v, 0, len(x)+len(y))
	for _, a := range x {
		pooled = append(pooled, v{a, true})
	}
	for _, b := range y {
		pooled = append(pooled, v{b, false})
	}
	slices.SortFunc(pooled, func(a, b v) int {
		switch {
		case a.val < b.val:
			return -1
		case a.val > b.val:
			return 1
		}
		return 0
	})
	for i := 0; i < len(pooled); {
		j := i + 1
		for j < len(pooled) && pooled[j].val == pooled[i].val {
			j++
		}
		t := j - i
		sizes = append(sizes, t)
		ties = ties || t > 1
		for _, p := range pooled[i:j] {
			if p.inX {
				xRanks2 = append(xRanks2, 2*i+t+1)
			}
		}
		i = j
	}
	return sizes, xRanks2, ties
}

// rankSumDist is the null distribution of the doubled rank sum of n values
// drawn without replacement from pooled values whose tie groups have the
// given sizes: dist[w] is the probability of the doubled sum w. Every one of
// the C(N, n) choices is equally likely; the count of those with a sum is
// built up group by group (choose k of a group's t values in C(t, k) ways).
func rankSumDist(sizes []int, n int) []float64 {
	total := 0
	for _, t := range sizes {
		total += t
	}
	maxW := n * (2*total - n + 1) // twice the sum of the n largest ranks
	cur := make([][]float64, n+1)
	next := make([][]float64, n+1)
	for c := range cur {
		cur[c], next[c] = make([]float64, maxW+1), make([]float64, maxW+1)
	}
	cur[0][0] = 1
	start, reach := 0, 0 // values before the group; the largest sum so far
	for _, t := range sizes {
		r2 := 2*start + t + 1
		binom := binomials(t)
		for c := range next {
			clear(next[c][:min(maxW, reach+t*r2)+1])
		}
		for c := 0; c <= min(n, start); c++ {
			for w, ways := range cur[c][:reach+1] {
				if ways == 0 {
					continue
				}
				for k := 0; k <= t && c+k <= n; k++ {
					next[c+k][w+k*r2] += ways * binom[k]
				}
			}
		}
		cur, next = next, cur
		start += t
		reach = min(maxW, reach+t*r2)
	}
	dist := cur[n]
	var sum float64
	for _, p := range dist {
		sum += p
	}
	for w := range dist {
		dist[w] /= sum
	}
	return dist
}

// binomials are C(t, k) for k = 0..t.
func binomials(t int) []float64 {
	out := make([]float64, t+1)
	out[0] = 1
	for k := 1; k <= t; k++ {
		out[k] = out[k-1] * float64(t-k+1) / float64(k)
	}
	return out
}

// untied caches the rank-sum distributions without ties, by sample sizes:
// they depend on nothing else.
var untied sync.Map

// untiedDist is the doubled rank-sum distribution of n of total distinct
// values.
func untiedDist(n, total int) []float64 {
	key := [2]int{n, total}
	if d, ok := untied.Load(key); ok {
		return d.([]float64)
	}
	sizes := make([]int, total)
	for i := range sizes {
		sizes[i] = 1
	}
	d := rankSumDist(sizes, n)
	untied.Store(key, d)
	return d
}
