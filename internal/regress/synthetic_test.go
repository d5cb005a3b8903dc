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

// The detector on 1 000 synthetic histories of 20 runs each: how often a
// drop is flagged within the 3 runs after it, and how often a history
// without one is flagged at those 3 runs, at the run-to-run noise below
// which a 5 % drop is caught 95 % of the time, at the noise measured on the
// real cluster here (make history-noise-real), and at half and twice each.
func TestDetectorOnSyntheticHistories(t *testing.T) {
	if testing.Short() {
		t.Skip("27 000 checks")
	}
	const n = 1000
	for _, tc := range []struct {
		name               string
		cv, drop           float64
		minFlagged, maxFPR float64 // minFlagged < 0: not asserted
	}{
		{"detectable / 2", detectableCV / 2, 0.05, 0.95, 0.01},
		{"detectable", detectableCV, 0.05, 0.95, 0.01},
		{"detectable x 2", detectableCV * 2, 0.05, -1, 0.01},
		{"real cluster / 2", realClusterCV / 2, 0.05, -1, 0.01},
		{"real cluster", realClusterCV, 0.05, -1, 0.01},
		{"real cluster x 2", realClusterCV * 2, 0.05, -1, 0.01},
		{"real cluster, a 25 % drop", realClusterCV, 0.25, 0.95, 0.01},
	} {
		flagged, _ := synthetic(n, 20, tc.cv, -tc.drop, 1)
		fpr := 0.0
		if tc.drop == 0.05 {
			_, fpr = synthetic(n, 20, tc.cv, 0, 2)
		}
		t.Logf("%-26s CV %5.2f %%: a %2.0f %% drop flagged within 3 runs in %5.1f %% of %d series; no change flagged in %.1f %%",
			tc.name, 100*tc.cv, 100*tc.drop, 100*flagged, n, 100*fpr)
		if tc.minFlagged >= 0 && flagged < tc.minFlagged {
			t.Errorf("%s: flagged %.1f %%, want at least %.0f %%", tc.name, 100*flagged, 100*tc.minFlagged)
		}
		if fpr > tc.maxFPR {
			t.Errorf("%s: %.1f %% of series without a change flagged, want at most %.0f %%", tc.name, 100*fpr, 100*tc.maxFPR)
		}
	}
}

// detectableCV is the run-to-run coefficient of variation of run medians up
// to which a 5 % step is flagged within 3 runs in 95 % of series: what three
// runs can show, whatever the method (the drop is then 4 standard deviations
// of one run).
const detectableCV = 0.0125

// realClusterCV is the run-to-run CV of fio 4k random reads' medians
// (QD16, 3 repetitions of 5 s) on this repository's real cluster, where the
// nodes share one host and its disk: 10 runs, make history-noise-real.
const realClusterCV = 0.060
