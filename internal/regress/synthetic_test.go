package regress

import (
	"math/rand/v2"
	"testing"
)

// synthetic is how Check does on n series at a run-to-run coefficient of
// variation cv: each series has history runs at one level, then three runs
// at level*(1+step), the runs' medians normal around their level. Check
// runs as the manager runs it, once per new run, on the three runs after
// the step; flagged is the share of series it called the step's way
// (Regressed for a drop) at one of them, anything the share it called
// Regressed or Improved at one of them.
func synthetic(n, history int, cv, step float64, seed uint64) (flagged, anything float64) {
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
			v := Check(series[:end], false, Options{})
			hit = hit || v.Change == want
			flaggedAny = flaggedAny || v.Change == Regressed || v.Change == Improved
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

// The detector on 1 000 synthetic histories of 20 runs: a 5 % drop is
// flagged within the 3 runs after it, and a history without one is flagged
// at those 3 runs, at the run-to-run noise below which the first is met
// (and at half and twice that, for the record).
func TestDetectorOnSyntheticHistories(t *testing.T) {
	if testing.Short() {
		t.Skip("18 000 checks")
	}
	const n = 1000
	for _, tc := range []struct {
		cv                 float64
		minFlagged, maxFPR float64 // -1: not asserted
	}{
		{detectableCV / 2, 0.95, 0.01},
		{detectableCV, 0.95, 0.01},
		{detectableCV * 2, -1, 0.01},
	} {
		flagged, _ := synthetic(n, 20, tc.cv, -0.05, 1)
		_, fpr := synthetic(n, 20, tc.cv, 0, 2)
		t.Logf("run-to-run CV %.2f %%: a 5 %% drop flagged within 3 runs in %.1f %% of %d series; no change flagged in %.1f %%",
			100*tc.cv, 100*flagged, n, 100*fpr)
		if tc.minFlagged >= 0 && flagged < tc.minFlagged {
			t.Errorf("CV %.2f %%: flagged %.1f %%, want at least %.0f %%", 100*tc.cv, 100*flagged, 100*tc.minFlagged)
		}
		if fpr > tc.maxFPR {
			t.Errorf("CV %.2f %%: %.1f %% of series without a change flagged, want at most %.0f %%", 100*tc.cv, 100*fpr, 100*tc.maxFPR)
		}
	}
}

// detectableCV is the run-to-run coefficient of variation of run medians up
// to which a 5 % step is flagged within 3 runs in 95 % of series.
const detectableCV = 0.0125
