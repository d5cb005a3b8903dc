package figure

import (
	"fmt"
	"html/template"
	"math"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// PlotScatter is a figure against a numeric axis label the runs differ in
// (seed 004: bandwidth against CPU frequency), a least-squares line per
// machine type.
const PlotScatter PlotKind = "scatter"

// Fits plan a plot per axis and figure of fits, in their order.
func Fits(fits []compare.Fit) []Plot {
	var out []Plot
	for start := 0; start < len(fits); {
		end := start + 1
		for end < len(fits) && sameFigure(fits[end], fits[start]) {
			end++
		}
		out = append(out, scatterPlot(fits[start:end]))
		start = end
	}
	return out
}

func sameFigure(a, b compare.Fit) bool {
	return a.Axis == b.Axis && a.Test == b.Test && a.Metric == b.Metric
}

// scatterPlot plans one figure's points against the axis, a series per
// machine type with its line; the legend gives each line's slope and r².
func scatterPlot(fits []compare.Fit) Plot {
	f := fits[0]
	p := Plot{Kind: PlotScatter, Title: f.Test + ": " + f.Metric + " vs " + f.AxisTitle, XLabel: f.AxisTitle,
		YLabel: axisLabel(f.Metric, f.Unit),
		Caption: "Each counted repetition of each run at its run's " + f.AxisTitle +
			"; a least-squares line per machine type, its slope and r² in the legend and in the fits table."}
	for _, fit := range fits {
		p.Series = append(p.Series, fitLegend(fit))
	}
	p.Draw = func() (template.HTML, error) {
		c := newChart(p.Title, p.XLabel, p.YLabel)
		xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, fit := range fits {
			for i := range fit.X {
				xlo, xhi = math.Min(xlo, fit.X[i]), math.Max(xhi, fit.X[i])
				ylo, yhi = math.Min(ylo, fit.Y[i]), math.Max(yhi, fit.Y[i])
			}
		}
		for k, fit := range fits {
			col := SeriesColor(k)
			xys := make(plotter.XYs, len(fit.X))
			for i := range fit.X {
				xys[i] = plotter.XY{X: fit.X[i], Y: fit.Y[i]}
			}
			points, err := plotter.NewScatter(xys)
			if err != nil {
				return "", err
			}
			points.Color, points.Shape, points.Radius = col, glyphs[k%len(glyphs)], 3
			c.P.Add(points)
			if math.IsNaN(fit.Slope) {
				c.addLegend(p.Series[k], points)
				continue
			}
			lo, hi := minMax(fit.X)
			line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: fit.Intercept + fit.Slope*lo}, {X: hi, Y: fit.Intercept + fit.Slope*hi}})
			if err != nil {
				return "", err
			}
			line.Color, line.Width = col, 1.5
			if k >= len(palette) {
				line.Dashes = []vg.Length{5, 3}
			}
			c.P.Add(line)
			c.addLegend(p.Series[k], line, points)
		}
		padX := math.Max((xhi-xlo)*0.06, math.Abs(xhi)*0.01+1e-9)
		c.P.X.Min, c.P.X.Max = xlo-padX, xhi+padX
		c.P.X.Tick.Marker = linearTicks{}
		fitY(c.P, ylo, yhi)
		c.P.Y.Min = math.Max(c.P.Y.Min, math.Min(0, ylo)) // no negative room below figures that cannot be negative
		c.P.X.Tick.Label.Rotation = 0
		c.P.X.Tick.Label.XAlign, c.P.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
		return c.svg()
	}
	return p
}

// fitLegend names a fit's series: its machine type and its line.
func fitLegend(f compare.Fit) string {
	name := f.Series
	if name == "" {
		name = "-"
	}
	if math.IsNaN(f.Slope) {
		return name + ": one " + f.AxisTitle + " only, no line"
	}
	return fmt.Sprintf("%s: slope %s, r² %s", name, WithUnit(FormatFit(f.Slope), SlopeUnit(f)), FormatR2(f.R2))
}

func minMax(vs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// FormatFit prints a slope or intercept with four significant digits.
func FormatFit(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// FormatR2 prints r² with three decimals.
func FormatR2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// SlopeUnit is the unit of a fit's slope: "MiB/s per MHz".
func SlopeUnit(f compare.Fit) string {
	return results.DisplayUnit(f.Unit) + " per " + axisUnit(f.Axis)
}

// axisUnit is the unit of an axis, for a slope: MHz, or one of the user's.
func axisUnit(key string) string {
	if key == results.LabelCPUMHz {
		return "MHz"
	}
	return compare.AxisTitle(key)
}

// WithUnit is v followed by its unit, when it has one.
func WithUnit(v, unit string) string {
	if v == "-" || unit == "" {
		return v
	}
	return v + " " + unit
}
