package results

import (
	"math"
	"testing"
)

func TestBootstrapRatio(t *testing.T) {
	b := DefaultBootstrap
	steady := []float64{100, 101, 99, 100, 102}
	faster := []float64{260, 262, 258, 261, 259}
	iv := b.Ratio(faster, steady)
	if !iv.Known() || iv.Lo < 2.5 || iv.Hi > 2.7 || iv.Contains(1) {
		t.Errorf("steady 2.6x: interval %+v, want a narrow one around 2.6 without 1", iv)
	}
	if again := b.Ratio(faster, steady); again != iv {
		t.Errorf("the same figures gave %+v, then %+v", iv, again)
	}
	// The case of the issue: a ratio of medians of 6.7x between runs whose
	// CVs are 10.9% and 114.8% says little.
	noisy := []float64{1, 2, 13.4, 0.5, 40, 6.7, 9}
	iv = b.Ratio(noisy, []float64{1, 0.9, 1.1, 1.2, 0.85})
	if !iv.Contains(1) && iv.Hi/iv.Lo < 5 {
		t.Errorf("noisy run: interval %+v, want a wide one", iv)
	}
	if iv := b.Ratio([]float64{3}, steady); iv.Known() {
		t.Errorf("one repetition: %+v, want unknown", iv)
	}
	if iv := b.Ratio(steady, []float64{0, 0, 0}); iv.Known() {
		t.Errorf("zero denominators: %+v, want unknown", iv)
	}
}

func TestBootstrapMedian(t *testing.T) {
	iv := DefaultBootstrap.Median([]float64{10, 11, 12, 13, 14})
	if !iv.Contains(12) || iv.Lo < 10 || iv.Hi > 14 {
		t.Errorf("interval %+v", iv)
	}
	if Unknown.Contains(math.NaN()) || Unknown.Known() {
		t.Error("an unknown interval contains something")
	}
}
