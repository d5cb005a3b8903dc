package regress

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// changePoint is a change found in a series: the first index after it, its
// E-divisive statistic and its permutation p-value.
type changePoint struct {
	at   int
	stat float64
	p    float64
}

// minSegment is the fewest points on either side of a change point.
const minSegment = 2

// tieTolerance is how close, relatively, a permutation's statistic must
// come to the observed one to count as a tie: statistics of the same split
// computed in another order differ in their last bits.
const tieTolerance = 1e-9

// bestSplit is the split of x that maximizes the E-divisive statistic
// (alpha = 1): for X = x[:t] and Y = x[t:],
//
//	Q(t) = t(n-t)/n * (2/(t(n-t)) Σ|X-Y| - 1/C(t,2) Σ|X-X'| - 1/C(n-t,2) Σ|Y-Y'|)
//
// computed for every t from running sums of a distance matrix, in O(n^2).
// order, when set, permutes x.
func bestSplit(x []float64, order []int) (at int, stat float64) {
	n := len(x)
	v := func(i int) float64 {
		if order != nil {
			return x[order[i]]
		}
		return x[i]
	}
	// rowLeft[j] = Σ_{i<j} |x_i - x_j|; the sum over all pairs, total.
	var total float64
	rowLeft := make([]float64, n)
	rowRight := make([]float64, n) // Σ_{i>j} |x_i - x_j|
	for j := range n {
		for i := range j {
			d := math.Abs(v(i) - v(j))
			rowLeft[j] += d
			rowRight[i] += d
			total += d
		}
	}
	// Moving t from 0 to n: within X grows by rowLeft[t-1]; within Y loses
	// the pairs of x[t-1] with the points after it.
	var withinX float64
	withinY := total
	at, stat = -1, math.Inf(-1)
	for t := 1; t < n; t++ {
		withinX += rowLeft[t-1]
		withinY -= rowRight[t-1]
		if t < minSegment || n-t < minSegment {
			continue
		}
		between := total - withinX - withinY
		ft, fu, fn := float64(t), float64(n-t), float64(n)
		q := ft * fu / fn * (2*between/(ft*fu) - withinX/(ft*(ft-1)/2) - withinY/(fu*(fu-1)/2))
		if q > stat {
			at, stat = t, q
		}
	}
	return at, stat
}

// testSplit finds x's best split and its p-value: the share of
// permutations of x whose best split is at least as strong, ties within
// tieTolerance included (the observed one counted among them, so p >=
// 1/(perms+1)). It stops once that share cannot come under alpha (p is
// then above alpha, not exact). The permutations are seeded by the ranks
// of x, so a check is reproducible and gives one answer for x and for any
// positive multiple of it.
func testSplit(x []float64, alpha float64, perms int) (changePoint, bool) {
	at, stat := bestSplit(x, nil)
	if at < 0 {
		return changePoint{}, false
	}
	rng := rand.New(rand.NewPCG(seedOf(x), uint64(len(x))))
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	atLeast, limit := 1, alpha*float64(perms+1)
	tie := stat - tieTolerance*math.Abs(stat)
	for range perms {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if _, s := bestSplit(x, order); s >= tie {
			if atLeast++; float64(atLeast) > limit {
				break
			}
		}
	}
	return changePoint{at: at, stat: stat, p: float64(atLeast) / float64(perms+1)}, true
}

// seedOf hashes the ranks of x: the same for x and for c*x (c > 0), or
// log x, so proportional figures are tested on the same permutations.
func seedOf(x []float64) uint64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	h := uint64(14695981039346656037)
	for _, i := range idx {
		h = (h ^ uint64(i)) * 1099511628211
	}
	return h
}

// ChangePoints are every significant change point of series (E-divisive
// means, bisected on both sides of each one found), in order: the indexes
// of the first point after each change. Check finds the same ones over a
// history's newest Options.History runs; a plot draws them.
func ChangePoints(series []float64, opts Options) []int {
	cps := changePoints(logs(series), opts.withDefaults())
	out := make([]int, len(cps))
	for i, cp := range cps {
		out[i] = cp.at
	}
	return out
}

// changePoints are ChangePoints of y, the logs of a series, with their
// p-values.
func changePoints(y []float64, o Options) []changePoint {
	var out []changePoint
	var split func(from, to int)
	split = func(from, to int) {
		if to-from < 2*minSegment {
			return
		}
		cp, ok := testSplit(y[from:to], o.ChangeAlpha, o.Permutations)
		if !ok || cp.p > o.ChangeAlpha {
			return
		}
		split(from, from+cp.at)
		out = append(out, changePoint{at: from + cp.at, stat: cp.stat, p: cp.p})
		split(from+cp.at, to)
	}
	split(0, len(y))
	return out
}

// logs are the logs of series' values (nonpositive values give NaN).
func logs(series []float64) []float64 {
	out := make([]float64, len(series))
	for i, v := range series {
		out[i] = math.Log(v)
	}
	return out
}
