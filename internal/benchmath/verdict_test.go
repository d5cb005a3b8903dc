package benchmath

import (
	"math"
	"testing"
)

func TestCompareThreeVersusThree(t *testing.T) {
	// Issue 44's n2d randwrite: 1.09x between identical machines.
	v := mustCompare(t, []float64{1000, 1030, 1060}, []float64{1085, 1120, 1150})
	if v.Decided || !near(v.P, 0.1) || !near(v.MinP, 0.1) || v.Method != Exact || v.Interval.Known() || v.Interval.Need != 4 {
		t.Errorf("3 vs 3: %+v, want undecided at p 0.1, no interval, 4 a side for one", v)
	}
	if !near(v.Ratio, 1120.0/1030) {
		t.Errorf("ratio %v, want the medians' %v", v.Ratio, 1120.0/1030)
	}
	want := "~ not decided: p=0.10 with 3 vs 3; 6 a side would decide a change of 8.5 % at this spread"
	if got := v.String(); got != want || v.Mark() != "~" {
		t.Errorf("String() = %q, Mark() = %q; want %q, \"~\"", got, v.Mark(), want)
	}
}

func TestCompareDecided(t *testing.T) {
	base := []float64{100, 101, 99, 102, 98, 100.5, 99.5, 101.5, 98.5, 100}
	value := make([]float64, len(base))
	for i, b := range base {
		value[i] = 1.1 * b * (1 + 0.002*float64(i%3-1))
	}
	v := mustCompare(t, base, value)
	if !v.Decided || v.Need != 0 || !v.Interval.Known() || !v.Interval.Contains(1.1) || v.Interval.Contains(1) {
		t.Fatalf("10%% step, 10 vs 10: %+v, want decided with an interval around 1.1", v)
	}
	got := v.String()
	if got != "different: +9.8 % [+8.6 % to +11 %] (95 % interval), p=1.1e-05 with 10 vs 10" || v.Mark() != "" {
		t.Errorf("String() = %q, Mark() = %q", got, v.Mark())
	}
	inv := v.Inverse()
	if !near(inv.Ratio, 1/v.Ratio) || !near(inv.Interval.Lo, 1/v.Interval.Hi) || !near(inv.Interval.Hi, 1/v.Interval.Lo) || inv.P != v.P {
		t.Errorf("Inverse: %+v of %+v", inv, v)
	}
	if s := inv.String(); s != "different: -8.9 % [-10 % to -7.9 %] (95 % interval), p=1.1e-05 with 10 vs 10" {
		t.Errorf("Inverse().String() = %q, want the drop and its interval turned over", s)
	}
}

func TestCompareNoChange(t *testing.T) {
	v := mustCompare(t, []float64{5, 6, 7, 8}, []float64{5, 6, 7, 8})
	if v.Decided || v.P != 1 || v.Need != NoChange || !near(v.Ratio, 1) {
		t.Errorf("the same figures: %+v", v)
	}
	if got, want := v.String(), "~ not decided: p=1.00 with 4 vs 4; the sides show no change to decide"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestCompareNonPositive: a zero figure still gets a test, but no ratio's
// interval nor need.
func TestCompareNonPositive(t *testing.T) {
	v := mustCompare(t, []float64{0, 0, 0}, []float64{1, 2, 3})
	if !math.IsNaN(v.Ratio) || v.Interval.Known() || v.Need != 0 || !near(v.P, 0.1) {
		t.Errorf("a zero baseline: %+v", v)
	}
	if got, want := v.String(), "~ not decided: p=0.10 with 3 vs 3; 3 vs 3 can never give p at most 0.05"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCompareRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		base, value []float64
		opts        Options
		want        string
	}{
		{[]float64{1}, []float64{1}, Options{Alpha: 0, Level: 0.95}, "alpha 0: want a level between 0 and 1, such as 0.05"},
		{[]float64{1}, []float64{1}, Options{Alpha: 0.05, Level: 95}, "interval level 95: want a coverage between 0 and 1, such as 0.95"},
		{[]float64{1}, nil, DefaultOptions, "the run has no repetitions"},
		{[]float64{math.NaN()}, []float64{1}, DefaultOptions, "repetition 1 of the baseline is NaN: every figure must be a finite number"},
	} {
		if _, err := Compare(tc.base, tc.value, tc.opts); err == nil || err.Error() != tc.want {
			t.Errorf("Compare(%v, %v, %+v) = %v, want %q", tc.base, tc.value, tc.opts, err, tc.want)
		}
	}
}

// TestHugeSidesAreBounded: the most repetitions a side compare in well
// under a second, and one more is refused.
func TestHugeSidesAreBounded(t *testing.T) {
	base, value := make([]float64, MaxRepetitions), make([]float64, MaxRepetitions)
	for i := range base {
		base[i], value[i] = float64(1+i%97), float64(2+i%89)
	}
	v := mustCompare(t, base, value)
	if v.Method != MonteCarlo || !v.Interval.Known() {
		t.Errorf("1000 vs 1000: %+v", v)
	}
	if _, err := Compare(base, append(value, 1), DefaultOptions); err == nil {
		t.Error("1001 repetitions: no error")
	}
}

func TestNote(t *testing.T) {
	want := "p is the two-sided Mann-Whitney U test over the repetitions (exact up to 60 in all); " +
		"a comparison is decided when p, adjusted over the table's 12 comparisons (Benjamini-Hochberg), is at most 0.05, " +
		"a false discovery rate of 5 %; ~ marks one not decided. [a–b] is the 95 % interval of the ratio " +
		"(Hodges-Lehmann with exact bounds), given from 4 repetitions a side"
	if got := DefaultOptions.Note(12); got != want {
		t.Errorf("Note(12) =\n%s\nwant\n%s", got, want)
	}
}

func TestCompareHugeFigures(t *testing.T) {
	huge := []float64{math.MaxFloat64, math.MaxFloat64 / 2}
	v := mustCompare(t, huge, huge)
	if !near(v.Ratio, 1) || v.P != 1 {
		t.Errorf("the largest figures: ratio %v, p %v; want 1, 1", v.Ratio, v.P)
	}
}

func TestFormatPercent(t *testing.T) {
	for x, want := range map[float64]string{250: "250", 12.6: "13", 9.96: "10", 9.43: "9.4", 0.996: "1.0", 0.054: "0.05", 0.00005: "0.00"} {
		if got := formatPercent(x); got != want {
			t.Errorf("formatPercent(%v) = %q, want %q", x, got, want)
		}
	}
}
