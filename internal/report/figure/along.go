package figure

import (
	"html/template"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// Along plot a comparison's ratios against message size: per test
// and metric with sizes, a curve per group and value other than the
// baseline (seed 001: off-VM / on-VM latency per machine type, 70-80x at
// small sizes). The ratios are the table's, read the same way.
func Along(a compare.Along) []Plot {
	if a.Ladder { // its steps are the ladder's bars
		return nil
	}
	var out []Plot
	for _, f := range compare.RatioFigures(a) {
		out = append(out, ratioPlot(a, f))
	}
	return out
}

// ratioPlot draws ratio curves against message size: log2 sizes, and a
// log ratio axis when the ratios span a decade or more (else linear), with
// a dashed line at 1 (the baseline) and each point's interval as a bar.
func ratioPlot(a compare.Along, f *compare.RatioFigure) Plot {
	test, metric, cs := f.Test, f.Metric, f.Curves
	what := "speedup"
	if f.Ratio == compare.RatioValue {
		what = "ratio"
	}
	p := Plot{Kind: PlotRatios, Title: test + ": " + metric + " " + what + " vs message size",
		XLabel: "message size (bytes)", YLabel: what + " to " + a.Dimension.Name + " " + a.Dimension.Baseline,
		Caption: "The table's ratios at each message size, a curve per " + a.Dimension.Name + " value and group; " +
			"bars are the ratio's 95 % interval over the repetitions where both runs have 4 or more; the dashed line is 1 (the baseline)."}
	for _, c := range cs {
		p.Series = append(p.Series, c.Name)
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), 1.0, 1.0
	for _, c := range cs {
		for i, xy := range c.Xys {
			xlo, xhi = math.Min(xlo, xy.X), math.Max(xhi, xy.X)
			ylo, yhi = math.Min(ylo, xy.Y), math.Max(yhi, xy.Y)
			if c.Lo[i] > 0 && c.Hi[i] >= c.Lo[i] {
				ylo, yhi = math.Min(ylo, c.Lo[i]), math.Max(yhi, c.Hi[i])
			}
		}
	}
	logY := yhi/ylo >= 10
	p.Draw = func() (template.HTML, error) {
		ch := newChart(p.Title, p.XLabel, p.YLabel)
		one, err := plotter.NewLine(plotter.XYs{{X: xlo, Y: 1}, {X: xhi, Y: 1}})
		if err != nil {
			return "", err
		}
		one.Color, one.Dashes, one.Width = color.Gray{0x80}, []vg.Length{4, 3}, 1
		ch.P.Add(one)
		for k, c := range cs {
			line, points, err := seriesLine(k, c.Xys)
			if err != nil {
				return "", err
			}
			col := SeriesColor(k)
			if bars := intervalBars(c); bars != nil {
				bars.Color = col
				ch.P.Add(bars)
			}
			ch.P.Add(line, points)
			ch.addLegend(c.Name, line, points)
		}
		ch.P.X.Scale, ch.P.X.Tick.Marker = plot.LogScale{}, log2Ticks{}
		ch.P.X.Min, ch.P.X.Max = math.Exp2(math.Floor(math.Log2(xlo))), math.Exp2(math.Ceil(math.Log2(xhi)))
		if ch.P.X.Min == ch.P.X.Max {
			ch.P.X.Min, ch.P.X.Max = ch.P.X.Min/2, ch.P.X.Max*2
		}
		if logY {
			ch.P.Y.Scale, ch.P.Y.Tick.Marker = plot.LogScale{}, log10Ticks{}
			ch.P.Y.Min, ch.P.Y.Max = logRange(ylo, yhi)
		} else {
			pad := (yhi - ylo) * 0.08
			ch.P.Y.Min, ch.P.Y.Max = math.Max(0, ylo-pad), yhi+pad
		}
		return ch.svg()
	}
	return p
}

// intervalBars are a curve's known intervals as vertical bars; nil when it
// has none.
func intervalBars(c *compare.RatioCurve) *plotter.YErrorBars {
	if !c.HasBars {
		return nil
	}
	var pts errPoints
	for i, xy := range c.Xys {
		if lo, hi := c.Lo[i], c.Hi[i]; lo > 0 && hi >= lo {
			pts = append(pts, errPoint{xy.X, xy.Y, xy.Y - lo, hi - xy.Y})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil
	}
	bars.CapWidth = 4
	return bars
}

// errPoint is a point with its distances down and up to its interval's
// ends.
type errPoint struct{ x, y, down, up float64 }

// errPoints implement plotter.XYer and plotter.YErrorer.
type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].down, e[i].up }
