package regress

import "math"

// trend is the least-squares line through y over the runs of idx: its
// change from the first run of idx to the last (a log ratio), its t and
// degrees of freedom.
type trend struct {
	ok        bool
	d, t, df  float64
	from, end int
}

// trendOf fits the newest Window+Confirm runs since base, one-offs left
// out; it needs MinRuns+Confirm of them.
func trendOf(y []float64, base int, o Options) trend {
	n := len(y)
	idx := withoutOneOffs(y, span(max(base, n-o.Window-o.Confirm), n), o.Tolerance)
	m := len(idx)
	if m < o.MinRuns+o.Confirm {
		return trend{}
	}
	var mx, my float64
	for _, i := range idx {
		mx, my = mx+float64(i), my+y[i]
	}
	mx, my = mx/float64(m), my/float64(m)
	var sxx, sxy float64
	for _, i := range idx {
		dx := float64(i) - mx
		sxx, sxy = sxx+dx*dx, sxy+dx*(y[i]-my)
	}
	slope := sxy / sxx
	var ss float64
	for _, i := range idx {
		r := y[i] - my - slope*(float64(i)-mx)
		ss += r * r
	}
	se := max(math.Sqrt(ss/float64(m-2)/sxx), 1e-12)
	return trend{ok: true, d: slope * float64(idx[m-1]-idx[0]), t: slope / se, df: float64(m - 2), from: idx[0], end: n}
}
