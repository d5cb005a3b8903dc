package benchmath

import (
	"math/rand/v2"
)

// Method says how a p-value was computed.
type Method string

const (
	// Exact is the U test's p over every split of the pooled values.
	Exact Method = "exact"
	// MonteCarlo is the U test's p over MonteCarloRounds random splits.
	MonteCarlo Method = "Monte Carlo"
)

// exactLimit is the most values in all that UTest enumerates exactly (30
// a side): beyond, its Monte Carlo p is as good and costs less.
const exactLimit = 60

// MonteCarloRounds is the number of random splits beyond exactLimit: the
// p-value's standard error is at most 0.0035, and the smallest p is
// 1/(MonteCarloRounds+1).
const MonteCarloRounds = 20000

// UTestResult is a two-sided Mann-Whitney U test of two samples.
type UTestResult struct {
	// U is the Mann-Whitney statistic of x: the pairs (x_i, y_j) with x_i
	// above y_j, ties counting a half.
	U float64
	// P is the probability, were x and y drawn from one distribution, of a
	// rank sum at least as far from its mean as the one observed.
	P float64
	// MinP is the smallest p these sample sizes and ties can give: above
	// alpha, the test cannot decide whatever the values.
	MinP   float64
	Method Method
}

// UTest is the two-sided Mann-Whitney U test of x against y (the Wilcoxon
// rank-sum test), valid with ties: the mid-ranks' sum is compared with its
// distribution over every equally likely split of the pooled values into
// two groups of the samples' sizes (the permutation distribution, given
// the ties). Up to 60 values in all that distribution is exact; beyond,
// MonteCarloRounds splits drawn from a seed of the sample sizes alone.
func UTest(x, y []float64) (UTestResult, error) {
	if err := checkSide("first sample", x); err != nil {
		return UTestResult{}, err
	}
	if err := checkSide("second sample", y); err != nil {
		return UTestResult{}, err
	}
	return uTest(x, y), nil
}

// uTest is UTest on checked samples.
func uTest(x, y []float64) UTestResult {
	sizes, xRanks2, ties := tieGroups(x, y)
	n, total := len(x), len(x)+len(y)
	w2 := 0
	for _, r := range xRanks2 {
		w2 += r
	}
	res := UTestResult{U: float64(w2)/2 - float64(n*(n+1))/2}
	mean2 := n * (total + 1) // twice the rank sum's mean
	d := dev(w2, mean2)      // the same for y's sum: the distribution of the smaller side's is built
	if total > exactLimit {
		res.P, res.MinP, res.Method = monteCarloP(sizes, n, len(y), d), 1/float64(MonteCarloRounds+1), MonteCarlo
		return res
	}
	n = min(n, len(y))
	mean2 = n * (total + 1)
	var dist []float64
	if ties {
		dist = rankSumDist(sizes, n)
	} else {
		dist = untiedDist(n, total)
	}
	res.P, res.MinP, res.Method = tailP(dist, d, mean2), minP(dist, mean2), Exact
	return res
}

// dev is |w - mean|.
func dev(w, mean int) int {
	if w < mean {
		return mean - w
	}
	return w - mean
}

// tailP is the probability of a doubled rank sum at least d from mean2.
func tailP(dist []float64, d, mean2 int) float64 {
	if d == 0 {
		return 1 // every sum, without the sum's rounding
	}
	var p float64
	for w, pw := range dist {
		if pw > 0 && dev(w, mean2) >= d {
			p += pw
		}
	}
	return min(p, 1)
}

// minP is the tail probability of the most extreme sum dist allows.
func minP(dist []float64, mean2 int) float64 {
	far := 0
	for w, pw := range dist {
		if pw > 0 {
			far = max(far, dev(w, mean2))
		}
	}
	return tailP(dist, far, mean2)
}

// monteCarloP is the share of random splits whose doubled rank sum lies at
// least d from its mean, counting the observed split (so never 0). The seed
// is the sample sizes: the same sizes and ranks give the same p.
func monteCarloP(sizes []int, n, m, d int) float64 {
	ranks := make([]int, 0, n+m)
	start := 0
	for _, t := range sizes {
		for range t {
			ranks = append(ranks, 2*start+t+1)
		}
		start += t
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	draw := min(n, m) // |dev| is the same for either side's sum
	mean2 := draw * (n + m + 1)
	hits := 1
	for range MonteCarloRounds {
		w := 0
		for i := range draw { // a partial Fisher-Yates shuffle
			j := i + rng.IntN(len(ranks)-i)
			ranks[i], ranks[j] = ranks[j], ranks[i]
			w += ranks[i]
		}
		if dev(w, mean2) >= d {
			hits++
		}
	}
	return float64(hits) / float64(MonteCarloRounds+1)
}
