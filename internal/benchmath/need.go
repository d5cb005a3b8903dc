package benchmath

import (
	"math"
)

// Power is the chance with which RepetitionsToDecide's answer decides.
const Power = 0.8

// NoChange is RepetitionsToDecide's answer when the sides show no change:
// no number of repetitions decides a change of zero.
const NoChange = -1

// RepetitionsToDecide is how many repetitions a side would decide, with
// probability Power at level alpha, a change of the factor ratio between
// two sides whose logs spread with the standard deviation spread. It takes
// Noether's sample size for the U test with equal sides,
// N = (z(1-alpha/2) + z(Power))² / (3 (θ - 1/2)²), θ = P(run > baseline),
// and assumes what it is given is the truth: that the logs are normal with
// that spread and differ by log(ratio), so θ = Φ(|log ratio| / (spread √2)).
// It is at least the fewest repetitions a side with which the U test can
// decide at alpha at all (4 at 0.05), and says MaxRepetitions+1 beyond
// MaxRepetitions; with no spread, that fewest. NoChange for a ratio of 1,
// 0 for input it cannot use.
func RepetitionsToDecide(ratio, spread, alpha float64) int {
	if !(ratio > 0) || math.IsInf(ratio, 0) || !(spread >= 0) || math.IsInf(spread, 0) || !(alpha > 0 && alpha < 1) {
		return 0
	}
	shift := math.Abs(math.Log(ratio))
	if shift == 0 {
		return NoChange
	}
	floor := fewestToDecide(alpha)
	if spread == 0 { // every run repetition beyond every baseline one
		return floor
	}
	theta := normalCDF(shift / (spread * math.Sqrt2))
	if theta-0.5 < 1e-9 {
		return MaxRepetitions + 1
	}
	z := normalQuantile(1-alpha/2) + normalQuantile(Power)
	total := z * z / (3 * (theta - 0.5) * (theta - 0.5))
	if total/2 > MaxRepetitions {
		return MaxRepetitions + 1
	}
	return max(int(math.Ceil(total/2)), floor)
}

// fewestToDecide is the fewest repetitions a side (without ties) whose
// smallest two-sided U test p is at most alpha: 2/C(2n, n) <= alpha.
func fewestToDecide(alpha float64) int {
	for n := 1; n <= MaxRepetitions; n++ {
		if 2/choose(2*n, n) <= alpha*(1+1e-12) {
			return n
		}
	}
	return MaxRepetitions + 1
}

// logSpread is the pooled standard deviation of the two sides' logs, each
// around its own mean; NaN with fewer than three figures in all.
func logSpread(base, value []float64) float64 {
	df := len(base) + len(value) - 2
	if df < 1 {
		return math.NaN()
	}
	var ss float64
	for _, xs := range [][]float64{base, value} {
		var mean float64
		for _, x := range xs {
			mean += math.Log(x)
		}
		mean /= float64(len(xs))
		for _, x := range xs {
			d := math.Log(x) - mean
			ss += d * d
		}
	}
	return math.Sqrt(ss / float64(df))
}

// normalCDF is Φ(x).
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normalQuantile is Φ⁻¹(p).
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
