package regress

import (
	"slices"
	"testing"
)

func TestChangePoints(t *testing.T) {
	var series []float64
	for i := range 30 {
		v := 1000.0
		switch {
		case i >= 20:
			v = 1100
		case i >= 10:
			v = 900
		}
		series = append(series, v+float64(i%3)) // a little noise
	}
	if got := ChangePoints(series, Options{}); !slices.Equal(got, []int{10, 20}) {
		t.Errorf("change points %v, want [10 20]", got)
	}
	if got := ChangePoints([]float64{1, 1.01, 0.99, 1, 1.02, 0.98, 1, 1.01}, Options{}); len(got) != 0 {
		t.Errorf("a steady series has change points %v", got)
	}
}

func TestCheck(t *testing.T) {
	steady := []float64{100, 101, 99, 100.5, 99.5, 100, 100.2}
	for _, tc := range []struct {
		name          string
		series        []float64
		lowerIsBetter bool
		want          Change
		method        string
	}{
		{"too few", []float64{100, 101, 99}, false, TooFew, ""},
		{"steady", append(steady, 100.3), false, Steady, ""},
		{"one low run: a one-off", append(steady, 80), false, Outlier, MethodOutlier},
		{"a drop in IOPS", append(steady, 80, 80.5, 79.8), false, Regressed, "step"},
		{"a drop in latency", append(steady, 80, 80.5, 79.8), true, Improved, "step"},
		{"one-off, then normal", append(steady, 80, 100.1), false, Steady, ""},
		{"a rise under the tolerance", append(steady, 101.5), false, Steady, ""},
		{"garbage", append(steady, -1), false, TooFew, ""},
	} {
		v := Check(tc.series, tc.lowerIsBetter, Options{})
		if v.Change != tc.want || v.Method != tc.method {
			t.Errorf("%s: %s by %q (%s), want %s by %q", tc.name, v.Change, v.Method, v, tc.want, tc.method)
		}
	}
	// Three runs after a change: the step names them.
	series := append(append([]float64{}, steady...), steady...)
	series = append(series, 90, 90.5, 89.8)
	v := Check(series, false, Options{})
	if v.Change != Regressed || len(v.After) != 3 || v.Since != len(series)-3 {
		t.Errorf("three runs after a drop: %+v (%s)", v, v)
	}
}
