package compare

import (
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/benchwright/benchwright/internal/results"
)

// Fit is a least-squares line through one figure of the runs of one machine
// type against a numeric axis label they differ in (seed 004: bandwidth
// against CPU frequency, r² per node type). Each counted repetition of each
// run is a point at its run's value of the axis.
type Fit struct {
	// Axis is the label (cpu_mhz, x-NAME); AxisTitle how it reads.
	Axis, AxisTitle string
	// Test, Metric and Unit name the figure (its headline number for figures
	// over message sizes).
	Test, Metric, Unit string
	// Series is the machine type of the runs (their pool when they name
	// none; empty when neither), and their boost setting where recorded ("c2, turbo off"): the seed
	// fits with and without turbo apart.
	Series string
	// Runs are the runs' indices, in order of the axis.
	Runs []int
	// X and Y are the points.
	X, Y []float64
	// Slope (Unit per axis unit), Intercept (Unit) and R2 of the line; NaN
	// when the points have fewer than two values of the axis. R2 is NaN too
	// when every Y is the same.
	Slope, Intercept, R2 float64
}

// FitsNote says how to read the fits.
const FitsNote = "Least-squares lines of each headline figure against a numeric label the runs differ in (cpu_mhz: the CPU frequency recorded with the run; x-NAME: a benchwright.io/x-NAME benchmark label), one per machine type and turbo setting (where the nodes record it); every counted repetition is a point. r² near 1: the figure follows the label."

// Fits are the fits of every headline figure against every axis label that
// at least two runs have with different values, one per machine type.
func Fits(runs []Run) []Fit {
	var out []Fit
	for _, axis := range varyingAxes(runs) {
		for _, f := range Figures(runs) {
			out = append(out, fitsOf(f, runs, axis)...)
		}
	}
	return out
}

// varyingAxes are the axis labels at least two runs have with different
// values, sorted.
func varyingAxes(runs []Run) []string {
	values := map[string]map[float64]bool{}
	for _, r := range runs {
		for k, v := range r.Axes {
			if values[k] == nil {
				values[k] = map[float64]bool{}
			}
			values[k][v] = true
		}
	}
	var out []string
	for k, vs := range values {
		if len(vs) >= 2 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// fitsOf are f's fits against axis, one per machine type, in the order the
// machine types first appear.
func fitsOf(f *Figure, runs []Run, axis string) []Fit {
	bySeries := map[string]*Fit{}
	var order []string
	for _, ri := range f.Runs {
		x, ok := runs[ri].Axes[axis]
		if !ok {
			continue
		}
		pt, _, ok := f.HeadlinePoint(ri)
		if !ok || len(pt.Vals) == 0 {
			continue
		}
		series := runs[ri].MachineType
		if series == "" { // nodes that name no machine type: their pool
			series = runs[ri].Labels[results.LabelPool]
		}
		if boost := runs[ri].Labels[results.LabelBoost]; boost != "" {
			series = strings.TrimPrefix(series+", turbo "+boost, ", ")
		}
		fit := bySeries[series]
		if fit == nil {
			fit = &Fit{Axis: axis, AxisTitle: AxisTitle(axis), Test: f.Test, Metric: f.Metric, Unit: f.Unit, Series: series}
			bySeries[series] = fit
			order = append(order, series)
		}
		fit.Runs = append(fit.Runs, ri)
		for _, v := range pt.Vals {
			fit.X, fit.Y = append(fit.X, x), append(fit.Y, v)
		}
	}
	var out []Fit
	for _, series := range order {
		fit := bySeries[series]
		sort.SliceStable(fit.Runs, func(i, j int) bool { return runs[fit.Runs[i]].Axes[axis] < runs[fit.Runs[j]].Axes[axis] })
		fit.Slope, fit.Intercept, fit.R2 = leastSquares(fit.X, fit.Y)
		out = append(out, *fit)
	}
	return out
}

// leastSquares is the line y = intercept + slope*x through the points, and
// its coefficient of determination; NaN where the points do not make one.
func leastSquares(x, y []float64) (slope, intercept, r2 float64) {
	distinct := map[float64]bool{}
	for _, v := range x {
		distinct[v] = true
	}
	if len(distinct) < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	intercept, slope = stat.LinearRegression(x, y, nil, false)
	r2 = math.NaN()
	if stat.Variance(y, nil) > 0 {
		r2 = stat.RSquared(x, y, nil, intercept, slope)
	}
	return slope, intercept, r2
}
