package compare

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// minRatioSizes is how many message sizes a curve needs to be drawn: fewer
// say nothing a table does not.
const minRatioSizes = 4

// RatioCurve is one group's ratio of one value to the baseline's, against
// message size, with its interval where known (benchmath's).
type RatioCurve struct {
	Name    string
	Xys     plotter.XYs
	Lo, Hi  []float64 // the interval per point; NaN where unknown
	HasBars bool
}

// RatioFigure is one test and metric's ratio curves along a dimension.
type RatioFigure struct {
	Test, Metric string
	Ratio        Ratio
	Curves       []*RatioCurve
}

// RatioFigures gather the sized rows' ratios of a comparison by test and
// metric, in the table's order; a group without its baseline has none, and
// a curve of fewer than minRatioSizes sizes is left out.
func RatioFigures(a Along) []*RatioFigure {
	type key struct{ test, metric string }
	var out []*RatioFigure
	index := map[key]*RatioFigure{}
	for _, g := range a.Groups {
		if g.Missing != "" {
			continue
		}
		curves := map[key]map[int]*RatioCurve{}
		for _, r := range g.Rows {
			size, err := strconv.ParseFloat(r.MsgSize, 64)
			if err != nil || size <= 0 {
				continue
			}
			k := key{r.Test, r.Metric}
			f := index[k]
			if f == nil {
				f = &RatioFigure{Test: r.Test, Metric: r.Metric, Ratio: r.Ratio}
				index[k] = f
				out = append(out, f)
			}
			if curves[k] == nil {
				curves[k] = map[int]*RatioCurve{}
			}
			for v, val := range a.Dimension.Values {
				s := r.Speedups[v]
				if val == a.Dimension.Baseline || g.Runs[v] < 0 || !(s > 0) || math.IsInf(s, 0) {
					continue
				}
				c := curves[k][v]
				if c == nil {
					if len(f.Curves) == MaxCurves {
						continue
					}
					c = &RatioCurve{Name: curveName(a, g, val)}
					curves[k][v] = c
					f.Curves = append(f.Curves, c)
				}
				iv := r.Verdicts[v].Interval
				c.Xys = append(c.Xys, plotter.XY{X: size, Y: s})
				c.Lo, c.Hi = append(c.Lo, iv.Lo), append(c.Hi, iv.Hi)
				c.HasBars = c.HasBars || iv.Known()
			}
		}
	}
	for _, f := range out {
		f.Curves = slices.DeleteFunc(f.Curves, func(c *RatioCurve) bool { return len(c.Xys) < minRatioSizes })
	}
	return slices.DeleteFunc(out, func(f *RatioFigure) bool { return len(f.Curves) == 0 })
}

// curveName names a group's curve of value v: "n2 / n1, two-vms".
func curveName(a Along, g AlongGroup, v string) string {
	name := v + " / " + a.Dimension.Baseline
	if len(g.Key) > 0 {
		name += ", " + strings.Join(g.Key, ", ")
	}
	return name
}
