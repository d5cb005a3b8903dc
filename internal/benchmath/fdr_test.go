package benchmath

import (
	"math"
	"testing"
)

func TestAdjustBH(t *testing.T) {
	// R: p.adjust(c(0.041, 0.001, 0.205, 0.039, 0.06, 0.008, 0.042, 0.074), "BH")
	ps := []float64{0.041, 0.001, 0.205, 0.039, math.NaN(), 0.06, 0.008, 0.042, 0.074}
	want := []float64{0.0672, 0.008, 0.205, 0.0672, math.NaN(), 0.08, 0.032, 0.0672, 0.084571428571428575}
	got := AdjustBH(ps)
	for i := range want {
		if !(near(got[i], want[i]) || math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("adjusted p %d = %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

// TestTableDecidesOnAdjustedP: a comparison at p = 0.0079 decides alone,
// not among ten whose others show nothing.
func TestTableDecidesOnAdjustedP(t *testing.T) {
	clear := mustCompare(t, []float64{10, 11, 12, 13, 14}, []float64{20, 21, 22, 23, 24})
	if !clear.Decided || clear.Family != 1 {
		t.Fatalf("alone: %+v, want decided", clear)
	}
	flat := mustCompare(t, []float64{10, 12, 14, 16, 18}, []float64{11, 13, 15, 17, 19})
	vs := []Verdict{clear, flat, {}}
	for range 8 {
		vs = append(vs, flat)
	}
	got := Table(vs)
	if got[0].Decided || got[0].Family != 10 || !near(got[0].AdjustedP, 10*2.0/252) {
		t.Errorf("in the table: %+v, want undecided at adjusted p %v over 10", got[0], 10*2.0/252)
	}
	if got[0].Need <= 5 || got[0].Evidence() != "p=0.0079 (0.08 after FDR over 10) with 5 vs 5" {
		t.Errorf("in the table: Need %d, want more than the 5 it has; %s", got[0].Need, got[0].Evidence())
	}
	if got[1].Decided || !near(got[1].AdjustedP, got[1].P) {
		t.Errorf("the largest p: %+v, want it unadjusted and undecided", got[1])
	}
	if got[2].Family != 0 || got[2].Decided {
		t.Errorf("a row without a test: %+v, want it left as it was", got[2])
	}
	if !vs[0].Decided {
		t.Error("Table changed its input")
	}
	if one := Table(vs[:1]); !one[0].Decided {
		t.Errorf("a table of one: %+v, want decided", one[0])
	}
}

func mustCompare(t *testing.T, base, value []float64) Verdict {
	t.Helper()
	v, err := Compare(base, value, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
