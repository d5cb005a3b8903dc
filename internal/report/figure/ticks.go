package figure

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// log2Ticks marks message sizes: every power of two, labelled (1, 4, 16, ...
// 1K, 4K) so that about ten labels show.
type log2Ticks struct{}

// Ticks implements plot.Ticker.
func (log2Ticks) Ticks(lo, hi float64) []plot.Tick {
	e0, e1 := int(math.Floor(math.Log2(lo))), int(math.Ceil(math.Log2(hi)))
	step := 1
	for (e1-e0)/step > 11 {
		step *= 2
	}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		t := plot.Tick{Value: math.Exp2(float64(e))}
		if e%step == 0 {
			t.Label = compare.FormatBytes(t.Value)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// log10Ticks marks a log axis: decades labelled, 2..9 as minor ticks, and
// 2 and 5 (or every multiple) labelled too when the axis spans too few
// decades to read it; within less than that, linear ticks.
type log10Ticks struct{}

// Ticks implements plot.Ticker.
func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	labelled := func(label func(m int) bool) (ticks []plot.Tick, n int) {
		for e := e0; e <= e1; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow10(e)
				t := plot.Tick{Value: v}
				if label(m) && in(v) {
					t.Label = formatTick(v)
					n++
				}
				ticks = append(ticks, t)
			}
		}
		return ticks, n
	}
	for _, label := range []func(int) bool{
		func(m int) bool { return m == 1 },
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(int) bool { return true },
	} {
		if ticks, n := labelled(label); n >= 3 {
			return ticks
		}
	}
	return linearTicks{}.Ticks(lo, hi) // a narrow range: evenly spaced labels read better
}

// linearTicks label a linear axis at 1, 2 or 5 times a power of ten,
// about six labels, with minor ticks between them.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Floor(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if v >= lo-step*1e-9 {
			ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v)})
		}
		if minor := v + step/2; minor <= hi {
			ticks = append(ticks, plot.Tick{Value: minor})
		}
	}
	return ticks
}

// formatTick prints an axis value compactly: 0.05, 20, 1500, 20k, 1.5M.
func formatTick(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 4, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// logRange is the range of a log axis for data in [lo, hi]: out to whole
// decades when the data span two or more (so both ends are labelled), else
// a little wider than the data.
func logRange(lo, hi float64) (float64, float64) {
	if hi/lo >= 100 {
		return math.Pow10(int(math.Floor(math.Log10(lo)))), math.Pow10(int(math.Ceil(math.Log10(hi))))
	}
	return lo / 1.2, hi * 1.2
}

// unlabelled are a ticker's ticks without their labels: the time axis of
// a panel above another.
type unlabelled struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ticks := u.Ticker.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}
