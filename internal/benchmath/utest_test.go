package benchmath

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUTestSeparatedSides(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64 // 2/C(2n, n)
	}{{2, 1.0 / 3}, {3, 0.1}, {4, 2.0 / 70}, {5, 2.0 / 252}, {10, 2.0 / 184756}} {
		x, y := make([]float64, tc.n), make([]float64, tc.n)
		for i := range x {
			x[i], y[i] = float64(100+i), float64(i)
		}
		got, err := UTest(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got.P, tc.want) || !near(got.MinP, tc.want) || got.Method != Exact || got.U != float64(tc.n*tc.n) {
			t.Errorf("%d vs %d: %+v, want P = MinP = %v, U = %d, exact", tc.n, tc.n, got, tc.want, tc.n*tc.n)
		}
	}
}

// TestUTestMatchesEnumeration checks the p of tied samples against the
// count over every split of the pooled values.
func TestUTestMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n, m := 1+rng.IntN(7), 1+rng.IntN(7)
		levels := 1 + rng.IntN(5) // few distinct values: many ties
		x, y := make([]float64, n), make([]float64, m)
		for i := range x {
			x[i] = float64(rng.IntN(levels))
		}
		for i := range y {
			y[i] = float64(rng.IntN(levels))
		}
		got, err := UTest(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if want := enumeratedP(x, y); !near(got.P, want) {
			t.Fatalf("trial %d: UTest(%v, %v).P = %v, enumeration says %v", trial, x, y, got.P, want)
		}
	}
}

// enumeratedP is the two-sided p of x's mid-rank sum over every choice of
// len(x) of the pooled values.
func enumeratedP(x, y []float64) float64 {
	pooled := append(append([]float64(nil), x...), y...)
	rank := func(v float64) float64 { // the mid-rank of v in pooled
		below, equal := 0, 0
		for _, p := range pooled {
			if p < v {
				below++
			} else if p == v {
				equal++
			}
		}
		return float64(below) + float64(equal+1)/2
	}
	ranks := make([]float64, len(pooled))
	for i, v := range pooled {
		ranks[i] = rank(v)
	}
	n := len(x)
	mean := float64(n*(len(pooled)+1)) / 2
	var obs float64
	for _, r := range ranks[:n] {
		obs += r
	}
	far := math.Abs(obs-mean) - 1e-9
	hits, all := 0, 0
	for mask := 0; mask < 1<<len(pooled); mask++ {
		if popcount(mask) != n {
			continue
		}
		var w float64
		for i, r := range ranks {
			if mask&(1<<i) != 0 {
				w += r
			}
		}
		all++
		if math.Abs(w-mean) >= far {
			hits++
		}
	}
	return float64(hits) / float64(all)
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestUTestAllTiedIsOne(t *testing.T) {
	got, err := UTest([]float64{5, 5, 5}, []float64{5, 5, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	if got.P != 1 || got.MinP != 1 {
		t.Errorf("all tied: %+v, want P = MinP = 1", got)
	}
}

// TestUTestMonteCarlo checks the p beyond exactLimit against the exact
// distribution, and that proportional samples give the same p.
func TestUTestMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, 31), make([]float64, 32)
	for i := range x {
		x[i] = 100 + rng.NormFloat64()
	}
	for i := range y {
		y[i] = 100.4 + rng.NormFloat64()
	}
	got, err := UTest(x, y)
	if err != nil {
		t.Fatal(err)
	}
	sizes, xRanks2, _ := tieGroups(x, y)
	w2 := 0
	for _, r := range xRanks2 {
		w2 += r
	}
	mean2 := len(x) * (len(x) + len(y) + 1)
	exact := tailP(rankSumDist(sizes, len(x)), dev(w2, mean2), mean2)
	if got.Method != MonteCarlo || math.Abs(got.P-exact) > 0.015 {
		t.Errorf("Monte Carlo p = %v (%s), exact %v", got.P, got.Method, exact)
	}
	scaled := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, v := range xs {
			out[i] = v * 3.7
		}
		return out
	}
	again, err := UTest(scaled(x), scaled(y))
	if err != nil {
		t.Fatal(err)
	}
	if again.P != got.P {
		t.Errorf("proportional samples: p = %v, then %v", got.P, again.P)
	}
}

func TestUTestRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		x, y []float64
		want string
	}{
		{nil, []float64{1}, "the first sample has no repetitions"},
		{[]float64{1, math.NaN()}, []float64{1}, "repetition 2 of the first sample is NaN"},
		{[]float64{1}, []float64{math.Inf(-1)}, "repetition 1 of the second sample is -Inf"},
		{[]float64{1}, make([]float64, MaxRepetitions+1), "the second sample has 1001 repetitions: at most 1000 a side"},
	} {
		if _, err := UTest(tc.x, tc.y); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("UTest(%v, %d values) = %v, want %q", tc.x, len(tc.y), err, tc.want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
