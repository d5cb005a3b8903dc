package benchmath

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// figuresOf decodes data as float64s (8 bytes each, any bits: NaN, Inf,
// subnormals), tiled repeat times: huge sides from a short input.
func figuresOf(data []byte, repeat uint16) []float64 {
	var xs []float64
	for ; len(data) >= 8; data = data[8:] {
		xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(data)))
	}
	out := xs
	for range min(int(repeat), 2*MaxRepetitions) {
		if len(out) > 2*MaxRepetitions {
			break
		}
		out = append(out, xs...)
	}
	return out
}

func bits(xs ...float64) []byte {
	var out []byte
	for _, x := range xs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

func FuzzCompare(f *testing.F) {
	f.Add(bits(1000, 1030, 1060, 1085, 1120, 1150), uint8(3), uint16(0), 0.05, 0.95)
	f.Add(bits(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), uint8(5), uint16(0), 0.05, 0.99)
	f.Add(bits(math.NaN(), 1, 2), uint8(1), uint16(0), 0.05, 0.95)
	f.Add(bits(math.Inf(1), math.Inf(-1), 0, -1), uint8(2), uint16(0), 0.05, 0.95)
	f.Add(bits(), uint8(0), uint16(0), 0.05, 0.95)
	f.Add(bits(5e-324, math.MaxFloat64, -math.MaxFloat64, 1), uint8(2), uint16(400), 1e-300, 1-1e-16)
	f.Add(bits(1, 1, 1, 2, 2, 2), uint8(3), uint16(300), math.NaN(), math.Inf(1))
	f.Fuzz(func(t *testing.T, data []byte, split uint8, repeat uint16, alpha, level float64) {
		xs := figuresOf(data, repeat)
		cut := min(int(split), len(xs))
		if repeat > 0 {
			cut = len(xs) * int(split) / 256
		}
		base, value := xs[:cut], xs[cut:]
		start := time.Now()
		v, err := Compare(base, value, Options{Alpha: alpha, Level: level})
		if err == nil {
			checkVerdict(t, v)
			for _, w := range Table([]Verdict{v, v.Inverse(), {}}) {
				if w.tested() && (!(w.AdjustedP >= w.P) || w.AdjustedP > 1 || w.Family != 2 || w.String() == "") {
					t.Fatalf("in a table: %+v", w)
				}
			}
		}
		if u, err := UTest(base, value); err == nil && !(u.P > 0 && u.P <= 1 && u.MinP <= u.P) {
			t.Fatalf("UTest: %+v", u)
		}
		if iv, err := RatioInterval(base, value, level); err == nil && iv.Known() && !(iv.Lo > 0 && iv.Lo <= iv.Hi) {
			t.Fatalf("RatioInterval: %+v", iv)
		}
		for _, p := range AdjustBH(xs) {
			if !math.IsNaN(p) && !(p >= 0 && p <= 1) {
				t.Fatalf("AdjustBH(%v) gave %v", xs, p)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%d vs %d took %v", len(base), len(value), d)
		}
	})
}

// checkVerdict fails on a verdict whose parts disagree.
func checkVerdict(t *testing.T, v Verdict) {
	t.Helper()
	switch {
	case !(v.P > 0 && v.P <= 1 && v.MinP <= v.P):
		t.Fatalf("p %v, smallest %v", v.P, v.MinP)
	case v.AdjustedP != v.P || v.Family != 1 || v.Decided != (v.P <= v.Alpha):
		t.Fatalf("alone: %+v", v)
	case v.Interval.Known() && !(v.Interval.Lo <= v.Interval.Hi && v.Interval.Level >= v.Level*(1-1e-9)):
		t.Fatalf("interval %+v at %v", v.Interval, v.Level)
	case v.Decided && v.Need != 0, v.Need > MaxRepetitions+1, v.Need < NoChange:
		t.Fatalf("need %d: %+v", v.Need, v)
	case v.String() == "" || v.Inverse().String() == "":
		t.Fatal("no text")
	}
}

func FuzzSizes(f *testing.F) {
	f.Add(1.1, 0.03, 0.05, 0.95)
	f.Add(math.NaN(), math.Inf(1), 0.0, 1.0)
	f.Add(1+1e-16, 1e300, 1e-300, 1-1e-17)
	f.Add(5e-324, 0.0, math.MaxFloat64, -0.5)
	f.Fuzz(func(t *testing.T, ratio, spread, alpha, level float64) {
		if n := RepetitionsToDecide(ratio, spread, alpha); n < NoChange || n > MaxRepetitions+1 {
			t.Fatalf("RepetitionsToDecide(%v, %v, %v) = %d", ratio, spread, alpha, n)
		}
		if n := IntervalNeed(level); n < 0 || n > MaxRepetitions+1 {
			t.Fatalf("IntervalNeed(%v) = %d", level, n)
		}
	})
}
