package regress

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// noisy is n runs around level at 2 % run-to-run CV, from seed.
func noisy(n int, level float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + 0.02*rng.NormFloat64())
	}
	return out
}

// A change stays reported after its first runs: "regressed since run X"
// until a later change point.
func TestAChangeStaysReported(t *testing.T) {
	series := append(noisy(20, 1000, 1), noisy(12, 900, 2)...)
	for end := 23; end <= len(series); end++ {
		v := Check(series[:end], false, Options{})
		if v.Change != Regressed || v.Since < 20 || v.Since > end-3 {
			t.Errorf("run %d, %d runs after a 10 %% drop: %s, want Regressed since run 21 or a run after it", end, end-20, v)
		}
	}
	if v := Check(series, false, Options{}); v.Since != 20 {
		t.Errorf("12 runs after a 10 %% drop: %s, want Regressed since run 21", v)
	}
}

// A change point among the newest runs is a verdict, not too few runs.
func TestAChangePointIsNotTooFewRuns(t *testing.T) {
	series := []float64{100, 101, 99, 100, 101, 99, 100, 101, 99, 100, 101, 99, 90, 90.5, 89.5, 90}
	v := Check(series, false, Options{})
	if v.Change != Regressed || v.Since != 12 {
		t.Errorf("%s, want Regressed since run 13", v)
	}
}

// Permutations whose statistic ties the observed one (equal but for the
// last bits) count: 2 of the 126 ways to split these nine runs 4 and 5
// separate them as the series does, so p is near 2/126, not the 1/1000
// that counting only bit-for-bit ties gives.
func TestPermutationTiesCount(t *testing.T) {
	x := []float64{9.9, 9.9, 10.1, 10.1, 9, 9, 9, 8.95, 8.95}
	cp, ok := testSplit(x, 1, 999)
	if !ok || cp.at != 4 || cp.p < 0.01 || cp.p > 0.03 {
		t.Errorf("split at %d, p = %.4f; want at 4, p near 2/126 = 0.016", cp.at, cp.p)
	}
}

// A figure and a multiple of it (IOPS and bandwidth) get the same verdict,
// and a benchmark's verdict does not depend on the order of its figures.
func TestVerdictsInvariantUnderScaleAndOrder(t *testing.T) {
	for seed := range uint64(60) {
		a := append(noisy(20, 1000, seed), noisy(4, 960, seed+1000)...)
		b := noisy(24, 500, seed+2000)
		for _, c := range []float64{4096, 1.0 / 3, 1e6 / 7} {
			scaled := make([]float64, len(a))
			for i, v := range a {
				scaled[i] = v * c
			}
			va, vs := Check(a, false, Options{}), Check(scaled, false, Options{})
			if va.Change != vs.Change || va.Since != vs.Since || !slices.Equal(va.ChangePoints, vs.ChangePoints) {
				t.Fatalf("seed %d: %s for the figure, %s for %g times it", seed, va, vs, c)
			}
		}
		ab := CheckBenchmark([]Figure{{Series: a}, {Series: b}}, Options{})
		ba := CheckBenchmark([]Figure{{Series: b}, {Series: a}}, Options{})
		if ab.Verdict.Change != ba.Verdict.Change || ab.Verdict.Method != ba.Verdict.Method {
			t.Fatalf("seed %d: %s in one order, %s in the other", seed, ab.Verdict, ba.Verdict)
		}
	}
}

// One bad run is a one-off, and the normal runs after it are not flagged;
// a second and third run like it confirm the change.
func TestOneBadRunIsAOneOff(t *testing.T) {
	history := noisy(20, 1000, 7)
	odd := append(slices.Clone(history), 850)
	if v := Check(odd, false, Options{}); v.Change != Outlier || v.Since != 20 {
		t.Errorf("one run at -15 %%: %s, want Outlier at run 21", v)
	}
	for _, next := range [][]float64{{1003}, {1003, 995}} {
		s := append(slices.Clone(odd), next...)
		if v := Check(s, false, Options{}); v.Change != Steady || !slices.Contains(v.Outliers, 20) {
			t.Errorf("%d normal run(s) after a one-off: %s (one-offs %v), want Steady with run 21 a one-off", len(next), v, v.Outliers)
		}
	}
	if v := Check(append(slices.Clone(history), 850, 852, 848), false, Options{}); v.Change != Regressed {
		t.Errorf("three runs at -15 %%: %s, want Regressed", v)
	}
}

// A benchmark counts a job's IOPS and bandwidth once, and checks each
// group at Alpha over its group count: a figure that a check of its own
// flags is not flagged among 16 groups when its step is that weak.
func TestBenchmarkControlsFalseAlarmsOverGroups(t *testing.T) {
	a := append(noisy(20, 1000, 11), 1000*0.94, 1000*0.938, 1000*0.942)
	figs := []Figure{{Series: a, Group: "j0"}, {Series: scaleAll(a, 4096), Group: "j0"}}
	if b := CheckBenchmark(figs, Options{}); b.Groups != 1 || b.Figures[0].Change != b.Figures[1].Change {
		t.Errorf("IOPS and bandwidth of one job: %d groups, verdicts %s and %s", b.Groups, b.Figures[0], b.Figures[1])
	}
	alone := Check(a, false, Options{})
	many := Check(a, false, Options{Groups: 16})
	if alone.Change != Regressed || many.Change == Regressed {
		t.Errorf("a 6 %% step: %s alone, %s among 16 groups; want Regressed alone only", alone, many)
	}
}

func scaleAll(x []float64, c float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * c
	}
	return out
}

// A rate-capped run's medians are equal to the last digit, so their MAD is
// 0: a one-off among them (a run disturbed to 293 IOPS) was then kept in
// the baseline, and three runs at -20 % read as Steady (seen on the real
// cluster under load).
func TestOneOffAmongEqualMedians(t *testing.T) {
	history := []float64{1000, 293.2, 1000, 1000, 1000, 1000}
	if v := Check(append(slices.Clone(history), 800.1), false, Options{}); v.Flagged() {
		t.Errorf("one run at -20 %% after equal medians and a one-off: %s, want no change yet", v)
	}
	if v := Check(append(slices.Clone(history), 800.1, 800.1, 799.9), false, Options{}); v.Change != Regressed {
		t.Errorf("three runs at -20 %% after equal medians and a one-off: %s, want Regressed", v)
	}
}

// Medians of 3 repetitions at ±0.4 % steps (the history page's nightly
// fio runs): most are equal, so their MAD is 0, yet the runs at ±0.4 % are
// the history's own spread, not one-offs. Left in, run 11 (the first at
// -10 %) was a baseline run at run 14, and the step Steady; floored at
// 0.1 %, the runs at -0.4 % were one-offs and the +0.4 % ones not.
func TestRunsWithinTheToleranceAreNoOneOffs(t *testing.T) {
	x := []float64{-1, 0, 0, 0, 1, -1, 0, 0, 0, 1, -1, 0, 0, 0, 1}
	series := make([]float64, len(x))
	for i, d := range x {
		level := map[bool]float64{true: 88000, false: 79000}[i < 10]
		series[i] = level * (1 + 0.004*d)
	}
	if v := Check(series[:14], false, Options{}); v.Change != Regressed || v.Method != MethodStep || len(v.Baseline) != 10 {
		t.Errorf("4 runs at -10 %% after 10 at ±0.4 %%: %s, want Regressed by a step against all 10", v)
	}
	v := Check(series, false, Options{})
	if v.Change != Regressed || v.Method != MethodChangePoint || v.Since != 10 || len(v.After) != 5 || len(v.Baseline) != 10 || len(v.Outliers) != 0 {
		t.Errorf("5 runs at -10 %% after 10, each level at ±0.4 %%: %s, outliers %v; want Regressed since run 11 by a change point, 5 runs against 10, no one-off", v, v.Outliers)
	}
}
