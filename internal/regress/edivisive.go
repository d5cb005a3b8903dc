package regress

import (
	"math"
	"math/rand/v2"
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
// permutations of x whose best split is at least as strong (the observed
// one counted among them, so p >= 1/(perms+1)). It stops once that share
// cannot come under alpha (p is then above alpha, not exact). The
// permutations are seeded by the series, so a check is reproducible.
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
	for range perms {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		if _, s := bestSplit(x, order); s >= stat {
			if atLeast++; float64(atLeast) > limit {
				break
			}
		}
	}
	return changePoint{at: at, stat: stat, p: float64(atLeast) / float64(perms+1)}, true
}

func seedOf(x []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range x {
		h = (h ^ math.Float64bits(v)) * 1099511628211
	}
	return h
}

// lastChange is the most recent significant change point of x (at level
// alpha), found by bisection: a significant split's right part is searched
// again for a later one. ok is false when x has none.
func lastChange(x []float64, alpha float64, perms int) (changePoint, bool) {
	var found changePoint
	ok := false
	offset, rest := 0, x
	for len(rest) >= 2*minSegment {
		cp, split := testSplit(rest, alpha, perms)
		if !split || cp.p > alpha {
			break
		}
		found, ok = changePoint{at: offset + cp.at, stat: cp.stat, p: cp.p}, true
		offset += cp.at
		rest = rest[cp.at:]
	}
	return found, ok
}

// ChangePoints are every significant change point of series (E-divisive
// means, bisected on both sides of each one found), in order: the indexes
// of the first point after each change. For a history's plot.
func ChangePoints(series []float64, opts Options) []int {
	o := opts.withDefaults()
	var out []int
	var split func(from, to int)
	split = func(from, to int) {
		if to-from < 2*minSegment {
			return
		}
		cp, ok := testSplit(series[from:to], o.Alpha, o.Permutations)
		if !ok || cp.p > o.Alpha {
			return
		}
		split(from, from+cp.at)
		out = append(out, from+cp.at)
		split(from+cp.at, to)
	}
	split(0, len(series))
	return out
}
