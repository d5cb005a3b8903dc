package benchmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRepetitionsToDecide(t *testing.T) {
	for _, tc := range []struct {
		ratio, spread, alpha float64
		want                 int
	}{
		{1.10, 0.03, 0.05, 6}, // θ = Φ(2.25) = 0.988: N = 7.85/(3·0.488²) = 11
		{1 / 1.10, 0.03, 0.05, 6},
		{1.05, 0.03, 0.05, 10}, // θ = 0.875: N = 18.6
		{1.10, 0, 0.05, 4},     // no spread: the fewest with which the test can decide
		{1.10, 0, 0.01, 5},
		{1, 0.03, 0.05, NoChange},
		{1.0001, 0.5, 0.05, MaxRepetitions + 1},
		{math.NaN(), 0.03, 0.05, 0},
		{1.1, math.Inf(1), 0.05, 0},
		{1.1, 0.03, 0, 0},
		{-2, 0.03, 0.05, 0},
	} {
		if got := RepetitionsToDecide(tc.ratio, tc.spread, tc.alpha); got != tc.want {
			t.Errorf("RepetitionsToDecide(%v, %v, %v) = %d, want %d", tc.ratio, tc.spread, tc.alpha, got, tc.want)
		}
	}
}

// TestRepetitionsToDecideHolds draws sides a factor apart with the spread
// given, at the repetitions RepetitionsToDecide answers, and counts how
// often the U test decides: about Power (Noether's is an approximation).
func TestRepetitionsToDecideHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct{ ratio, spread float64 }{{1.05, 0.03}, {1.02, 0.02}, {1.10, 0.08}} {
		n := RepetitionsToDecide(tc.ratio, tc.spread, 0.05)
		const trials = 1000
		decided := 0
		for range trials {
			base, value := make([]float64, n), make([]float64, n)
			for i := range base {
				base[i] = math.Exp(tc.spread * rng.NormFloat64())
				value[i] = tc.ratio * math.Exp(tc.spread*rng.NormFloat64())
			}
			if mustCompare(t, base, value).Decided {
				decided++
			}
		}
		rate := float64(decided) / trials
		t.Logf("%.0f%% change at %.0f%% spread: %d a side decided %.1f%%", 100*(tc.ratio-1), 100*tc.spread, n, 100*rate)
		if rate < 0.75 || rate > 0.95 {
			t.Errorf("%v at spread %v: %d a side decided %.3f, want about %v", tc.ratio, tc.spread, n, rate, Power)
		}
	}
}
