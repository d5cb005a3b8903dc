package regress

import (
	"math/rand/v2"
	"testing"
)

// synthetic is how a detector does on n series of history+3 run medians
// at a run-to-run coefficient of variation cv: each series has history
// runs at one level, then three runs at level*(1+step). It returns the share
// of series flagged Regressed (step < 0) or Improved at one of the three
// runs after the step, and the share flagged anything at all.
func synthetic(n, history int, cv, step float64, seed uint64, opts Options) (flagged, anything float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	want := Improved
	if step < 0 {
		want = Regressed
	}
	hits, any := 0, 0
	for range n {
		series := make([]float64, 0, history+3)
		for i := range history + 3 {
			level := 1000.0
			if i >= history {
				level *= 1 + step
			}
			series = append(series, level*(1+cv*rng.NormFloat64()))
		}
		hit, flaggedAny := false, false
		for end := history + 1; end <= history+3; end++ {
			v := Check(series[:end], false, opts)
			if v.Change == want {
				hit = true
			}
			if v.Change == Regressed || v.Change == Improved {
				flaggedAny = true
			}
		}
		if hit {
			hits++
		}
		if flaggedAny {
			any++
		}
	}
	return float64(hits) / float64(n), float64(any) / float64(n)
}

func TestSyntheticExplore(t *testing.T) {
	for _, cv := range []float64{0.005, 0.01, 0.02, 0.04} {
		det, _ := synthetic(300, 20, cv, -0.05, 1, Options{})
		_, fp := synthetic(300, 20, cv, 0, 2, Options{})
		t.Logf("cv %.1f%%: a 5%% step flagged in %.1f%%, no step flagged in %.1f%%", 100*cv, 100*det, 100*fp)
	}
}
