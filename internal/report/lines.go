package report

import (
	"html/template"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// glyphs tell series apart beyond their colors.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{},
	draw.PyramidGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// linePlot plans f's medians against message size on log-log axes, a curve
// per run; sizes of 0 bytes and values of 0 have no place on them.
func linePlot(f *figure, runs []Run) (Plot, bool) {
	p := Plot{Kind: PlotLines, Title: f.test + ": " + f.metric + " vs message size", XLabel: "message size (bytes)",
		YLabel:  axisLabel(f.metric, f.unit),
		Caption: "Median over the counted repetitions at each message size, log-log axes (0-byte sizes and zero values cannot be drawn on them)."}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var curves []plotter.XYs
	for _, ri := range f.runs {
		var xys plotter.XYs
		for _, pt := range f.points[ri] {
			if pt.size > 0 && pt.stats.Median > 0 {
				xys = append(xys, plotter.XY{X: pt.size, Y: pt.stats.Median})
				xlo, xhi = math.Min(xlo, pt.size), math.Max(xhi, pt.size)
				ylo, yhi = math.Min(ylo, pt.stats.Median), math.Max(yhi, pt.stats.Median)
			}
		}
		if len(xys) > 0 {
			curves = append(curves, xys)
			p.Series = append(p.Series, runs[ri].Label())
		}
	}
	p.draw = func() (template.HTML, error) {
		c := newChart(p.Title, p.XLabel, p.YLabel)
		for k, xys := range curves {
			line, points, err := seriesLine(k, xys)
			if err != nil {
				return "", err
			}
			c.p.Add(line, points)
			c.addLegend(p.Series[k], line, points)
		}
		c.p.X.Scale, c.p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		c.p.X.Tick.Marker, c.p.Y.Tick.Marker = log2Ticks{}, log10Ticks{}
		c.p.X.Min, c.p.X.Max = math.Exp2(math.Floor(math.Log2(xlo))), math.Exp2(math.Ceil(math.Log2(xhi)))
		if c.p.X.Min == c.p.X.Max {
			c.p.X.Min, c.p.X.Max = c.p.X.Min/2, c.p.X.Max*2
		}
		c.p.Y.Min, c.p.Y.Max = logRange(ylo, yhi)
		return c.svg()
	}
	return p, len(curves) > 0
}

// seriesLine is curve k of a plot: its series color, dashed past the
// palette, with its glyph at each point.
func seriesLine(k int, xys plotter.XYs) (*plotter.Line, *plotter.Scatter, error) {
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, err
	}
	col := seriesColor(k)
	line.Color, line.Width = col, 1.5
	if k >= len(palette) {
		line.Dashes = []vg.Length{5, 3}
	}
	points.Color, points.Shape, points.Radius = col, glyphs[k%len(glyphs)], 2.5
	return line, points, nil
}
