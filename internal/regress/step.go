package regress

import (
	"math"
	"slices"
)

// agreeLimit is how far apart, in the baseline's standard deviations, the
// confirming runs of a step may lie: three runs of one level lie wider
// apart less than 1 % of the time; one-offs among normal runs lie wider.
const agreeLimit = 4.5

// outlierMADs is how many robust standard deviations (1.4826 MAD) from the
// baseline's median a baseline run must lie, beyond the tolerance, to be
// left out as a one-off.
const outlierMADs = 4

// sdFloor is the least standard deviation, on logs, that a step is
// measured against: no benchmark repeats to better than 0.1 %, and equal
// medians (a rate-capped run) would otherwise make the runs of any change
// disagree with each other, so that none confirms it.
const sdFloor = 1e-3

// step is the newest runs against the baseline before them, on logs.
type step struct {
	// ok: the baseline has MinRuns runs.
	ok bool
	// baseline are the runs compared with (one-offs left out), outliers the
	// one-offs found among them and among the newest runs.
	baseline, outliers, window []int
	sd, df, noise              float64
	// confirmed: Confirm runs that agree with each other.
	confirmed bool
	d, se, p  float64
	// newestD and newestP are the newest run alone against the baseline.
	newestD, newestP float64
}

// stepOf is the last Confirm runs of y against the runs before them since
// the most recent change point at least MinRuns before them (cps, all at
// or after base).
// A history shorter than that compares fewer runs, which confirm nothing.
func stepOf(y []float64, cps []changePoint, base int, o Options) step {
	n := len(y)
	from := base
	for _, cp := range cps {
		// A change point among the newest runs, or too close before them
		// for a baseline, is the step's own change: the baseline ends at it.
		if cp.at <= n-o.Confirm-o.MinRuns {
			from = cp.at
		}
	}
	k := min(o.Confirm, n-from-o.MinRuns)
	if k < 1 {
		return step{}
	}
	st := step{window: span(n-k, n)}
	var kept []int
	raw := span(max(from, n-k-o.Window), n-k)
	st.outliers = oneOffs(y, raw, o.Tolerance)
	for _, i := range raw {
		if !slices.Contains(st.outliers, i) {
			kept = append(kept, i)
		}
	}
	if len(kept) < o.MinRuns {
		return step{}
	}
	b, w := pick(y, kept), pick(y, st.window)
	mb := mean(b)
	st.ok, st.baseline = true, kept
	st.sd, st.df = max(stddev(b), sdFloor), float64(len(b)-1)
	st.noise = math.Sqrt(math.Expm1(st.sd * st.sd)) // a lognormal's CV
	m := float64(len(b))
	alpha := o.Alpha / float64(o.Groups)
	single := st.sd * math.Sqrt(1+1/m)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range st.window {
		t := (y[i] - mb) / single
		lo, hi = min(lo, t), max(hi, t)
	}
	for _, i := range st.window {
		t := (y[i] - mb) / single
		if p := studentTwoSided(t, st.df); p <= alpha && math.Abs(math.Expm1(y[i]-mb)) >= o.Tolerance {
			if i == n-1 || k < o.Confirm || hi-lo > agreeLimit {
				st.outliers = append(st.outliers, i)
			}
		}
	}
	st.newestD = y[n-1] - mb
	st.newestP = studentTwoSided(st.newestD/single, st.df)
	st.confirmed = k == o.Confirm && hi-lo <= agreeLimit
	if !st.confirmed {
		// The newest run is a one-off only when it stands alone.
		st.outliers = slices.DeleteFunc(st.outliers, func(i int) bool { return i == n-1 && st.newestP > alpha })
		return st
	}
	st.outliers = slices.DeleteFunc(st.outliers, func(i int) bool { return i >= n-k })
	st.d = mean(w) - mb
	st.se = st.sd * math.Sqrt(1/float64(k)+1/m)
	st.p = studentTwoSided(st.d/st.se, st.df)
	return st
}

// verdict is the step's verdict c, completing v.
func (st step) verdict(v Verdict, c Change, method string) Verdict {
	q := tQuantile(0.05, st.df)
	v.Change, v.Method, v.Since, v.P = c, method, st.window[0], st.p
	v.Ratio, v.Low, v.High = math.Exp(st.d), math.Exp(st.d-q*st.se), math.Exp(st.d+q*st.se)
	v.Baseline, v.After = st.baseline, st.window
	return v
}

// oneOffs are the runs of idx that lie outlierMADs robust standard
// deviations and the tolerance from the median of y over idx.
func oneOffs(y []float64, idx []int, tolerance float64) []int {
	if len(idx) < 4 {
		return nil
	}
	vals := pick(y, idx)
	med := median(vals)
	dev := make([]float64, len(vals))
	for i, v := range vals {
		dev[i] = math.Abs(v - med)
	}
	// Most medians equal (a rate-capped run, or a figure with few digits)
	// give a MAD of 0: the tolerance then tells the one-offs, not the
	// last digit.
	mad := 1.4826 * median(dev)
	var out []int
	for i, d := range dev {
		if d > outlierMADs*mad && math.Abs(math.Expm1(vals[i]-med)) >= tolerance {
			out = append(out, idx[i])
		}
	}
	return out
}

// tQuantile is the t with P(|T| >= t) = alpha for Student's t with df
// degrees of freedom (by bisection).
func tQuantile(alpha, df float64) float64 {
	if df < 1 {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1e4
	for range 200 {
		mid := (lo + hi) / 2
		if studentTwoSided(mid, df) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
