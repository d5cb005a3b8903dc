package figure

import (
	"html/template"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// glyphs tell series apart beyond their colors.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{},
	draw.PyramidGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// Lines plans f's medians against message size on log-log axes, a curve
// per run; sizes of 0 bytes and values of 0 have no place on them.
func Lines(f *compare.Figure, runs []compare.Run) (Plot, bool) {
	p := Plot{Kind: PlotLines, Title: f.Test + ": " + f.Metric + " vs message size", XLabel: "message size (bytes)",
		YLabel:  axisLabel(f.Metric, f.Unit),
		Caption: "Median over the counted repetitions at each message size, log-log axes (0-byte sizes and zero values cannot be drawn on them)."}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var curves []plotter.XYs
	for _, ri := range f.Runs {
		var xys plotter.XYs
		for _, pt := range f.Points[ri] {
			if pt.Size > 0 && pt.Stats.Median > 0 {
				xys = append(xys, plotter.XY{X: pt.Size, Y: pt.Stats.Median})
				xlo, xhi = math.Min(xlo, pt.Size), math.Max(xhi, pt.Size)
				ylo, yhi = math.Min(ylo, pt.Stats.Median), math.Max(yhi, pt.Stats.Median)
			}
		}
		if len(xys) > 0 {
			curves = append(curves, xys)
			p.Series = append(p.Series, runs[ri].Label())
		}
	}
	p.Draw = func() (template.HTML, error) {
		c := newChart(p.Title, p.XLabel, p.YLabel)
		for k, xys := range curves {
			line, points, err := seriesLine(k, xys)
			if err != nil {
				return "", err
			}
			c.P.Add(line, points)
			c.addLegend(p.Series[k], line, points)
		}
		c.P.X.Scale, c.P.Y.Scale = plot.LogScale{}, plot.LogScale{}
		c.P.X.Tick.Marker, c.P.Y.Tick.Marker = log2Ticks{}, log10Ticks{}
		c.P.X.Min, c.P.X.Max = math.Exp2(math.Floor(math.Log2(xlo))), math.Exp2(math.Ceil(math.Log2(xhi)))
		if c.P.X.Min == c.P.X.Max {
			c.P.X.Min, c.P.X.Max = c.P.X.Min/2, c.P.X.Max*2
		}
		c.P.Y.Min, c.P.Y.Max = logRange(ylo, yhi)
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
	col := SeriesColor(k)
	line.Color, line.Width = col, 1.5
	if k >= len(palette) {
		line.Dashes = []vg.Length{5, 3}
	}
	points.Color, points.Shape, points.Radius = col, glyphs[k%len(glyphs)], 2.5
	return line, points, nil
}
