package benchmath

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRatioIntervalNeedsRepetitions(t *testing.T) {
	iv, err := RatioInterval([]float64{10, 11, 12}, []float64{20, 21, 22}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if iv.Known() || iv.Need != 4 || iv.Level != 0 {
		t.Errorf("3 vs 3 at 95%%: %+v, want no bounds and Need 4", iv)
	}
	// At 90 % the same repetitions have one: the extreme pair ratios.
	iv, err = RatioInterval([]float64{10, 11, 12}, []float64{20, 21, 22}, 0.90)
	if err != nil {
		t.Fatal(err)
	}
	if !near(iv.Lo, 20.0/12) || !near(iv.Hi, 22.0/10) || !near(iv.Level, 0.9) || iv.Need != 0 {
		t.Errorf("3 vs 3 at 90%%: %+v, want [20/12, 22/10] at 0.9", iv)
	}
}

func TestRatioIntervalFourASide(t *testing.T) {
	base, value := []float64{1, 2, 3, 4}, []float64{2, 4, 6, 8}
	iv, err := RatioInterval(base, value, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !near(iv.Lo, 0.5) || !near(iv.Hi, 8) || !near(iv.Level, 1-2.0/70) || !near(iv.Estimate, 2) {
		t.Errorf("4 vs 4: %+v, want [0.5, 8] at %v around 2", iv, 1-2.0/70)
	}
}

func TestIntervalNeed(t *testing.T) {
	for level, want := range map[float64]int{0.5: 2, 0.9: 3, 0.95: 4, 0.99: 5, 0.999: 7, 1: 0, math.NaN(): 0, 1 - 1e-12: 22} {
		if got := IntervalNeed(level); got != want {
			t.Errorf("IntervalNeed(%v) = %d, want %d", level, got, want)
		}
	}
}

// TestRatioIntervalCoverage draws sides a known factor apart and counts
// how often the interval holds the factor: at least its level.
func TestRatioIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{4, 5, 8, 12} {
		const trials, factor = 4000, 1.1
		held := 0
		for range trials {
			base, value := make([]float64, n), make([]float64, n+1)
			for i := range base {
				base[i] = math.Exp(0.05 * rng.NormFloat64())
			}
			for i := range value {
				value[i] = factor * math.Exp(0.05*rng.NormFloat64())
			}
			iv, err := RatioInterval(base, value, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if iv.Contains(factor) {
				held++
			}
		}
		rate := float64(held) / trials
		t.Logf("%d vs %d: the 95%% interval held the factor in %.1f%%", n+1, n, 100*rate)
		if rate < 0.95-3*math.Sqrt(0.95*0.05/trials) { // three standard errors of chance
			t.Errorf("%d vs %d: coverage %.3f, want at least 0.95", n+1, n, rate)
		}
	}
}

func TestRatioIntervalRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		base, value []float64
		level       float64
		want        string
	}{
		{[]float64{1, 2}, []float64{1, 0}, 0.95, "repetition 2 of the run is 0: a ratio's interval needs positive figures"},
		{[]float64{1, 2}, []float64{1, 2}, 1, "interval level 1: want a coverage between 0 and 1"},
		{[]float64{1, math.Inf(1)}, []float64{1, 2}, 0.95, "repetition 2 of the baseline is +Inf"},
		{nil, []float64{1}, 0.95, "the baseline has no repetitions"},
	} {
		if _, err := RatioInterval(tc.base, tc.value, tc.level); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RatioInterval(%v, %v, %v) = %v, want %q", tc.base, tc.value, tc.level, err, tc.want)
		}
	}
}

// TestIntervalAgreesWithTest: without ties, a comparison alone is decided
// exactly when its interval leaves out 1 (Moses' interval inverts the U
// test), so a table never shows "different" beside an interval holding 1x.
func TestIntervalAgreesWithTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	decided := 0
	for range 2000 {
		n, m := 4+rng.IntN(7), 4+rng.IntN(7)
		factor := math.Exp(0.05 * rng.NormFloat64())
		base, value := make([]float64, n), make([]float64, m)
		for i := range base {
			base[i] = math.Exp(0.04 * rng.NormFloat64())
		}
		for i := range value {
			value[i] = factor * math.Exp(0.04*rng.NormFloat64())
		}
		v := mustCompare(t, base, value)
		if !v.Interval.Known() {
			t.Fatalf("%d vs %d: no interval", m, n)
		}
		if v.Decided == v.Interval.Contains(1) {
			t.Fatalf("%d vs %d: decided %v (p=%v) with the interval [%v, %v]", m, n, v.Decided, v.P, v.Interval.Lo, v.Interval.Hi)
		}
		if v.Decided {
			decided++
		}
	}
	t.Logf("%d of 2000 decided", decided)
}
