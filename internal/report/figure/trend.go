package figure

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// Trend draws a trend: each run's median at its time, its repetitions'
// range as a bar, the mean of each stretch between change points as a
// dashed level, and each change point as a vertical line with its change.
func Trend(t compare.Trend) (template.HTML, error) {
	if len(t.Points) == 0 {
		return "", fmt.Errorf("a trend without runs")
	}
	c := newChart(t.Title, "run finished (UTC)", axisLabel(t.Metric, t.Unit))
	var medians plotter.XYs
	var bars plotter.XYs
	var errs plotter.YErrors
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range t.Points {
		x := float64(p.Finished.Unix())
		medians = append(medians, plotter.XY{X: x, Y: p.Median})
		bars = append(bars, plotter.XY{X: x, Y: p.Median})
		errs = append(errs, struct{ Low, High float64 }{p.Median - p.Min, p.Max - p.Median})
		lo, hi = math.Min(lo, p.Min), math.Max(hi, p.Max)
	}
	line, points, err := seriesLine(0, medians)
	if err != nil {
		return "", err
	}
	c.P.Add(line, points)
	c.addLegend("median of the run's repetitions (bar: their range)", line, points)
	if eb, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{bars, errs}); err == nil {
		eb.Color = darker(SeriesColor(0))
		c.P.Add(eb)
	}
	bounds := append(append([]int{0}, t.Changes...), len(t.Points))
	for i := 0; i+1 < len(bounds); i++ {
		from, to := bounds[i], bounds[i+1]
		var sum float64
		for _, p := range t.Points[from:to] {
			sum += p.Median
		}
		level := sum / float64(to-from)
		x0, x1 := float64(t.Points[from].Finished.Unix()), float64(t.Points[to-1].Finished.Unix())
		if l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: level}, {X: x1, Y: level}}); err == nil {
			l.Color, l.Dashes, l.Width = color.Gray{0x70}, []vg.Length{4, 3}, 1.2
			c.P.Add(l)
			if i == 0 {
				c.addLegend("level between change points", l)
			}
		}
		if i == 0 {
			continue
		}
		prev := t.Points[bounds[i-1]:from]
		var prevSum float64
		for _, p := range prev {
			prevSum += p.Median
		}
		change := level/(prevSum/float64(len(prev))) - 1
		x := (float64(t.Points[from-1].Finished.Unix()) + x0) / 2
		if v, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}}); err == nil {
			v.Color, v.Dashes, v.Width = palette[2], []vg.Length{2, 2}, 1.2
			c.P.Add(v)
			if i == 1 {
				c.addLegend("change point", v)
			}
		}
		if lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: hi}}, Labels: []string{fmt.Sprintf(" %+.1f %%", 100*change)}}); err == nil {
			for j := range lb.TextStyle {
				lb.TextStyle[j].Font = sans(9)
				lb.TextStyle[j].Color = palette[2]
				lb.TextStyle[j].YAlign = draw.YBottom
			}
			c.P.Add(lb)
		}
	}
	format := "01-02 15:04"
	if t.Points[len(t.Points)-1].Finished.Sub(t.Points[0].Finished) > 72*time.Hour {
		format = "Jan 2"
	}
	c.P.X.Tick.Marker = plot.TimeTicks{Format: format}
	c.P.X.Tick.Label.Rotation = 0
	span := hi - lo
	if span == 0 {
		span = math.Max(math.Abs(hi)*0.05, 1)
	}
	c.P.Y.Min, c.P.Y.Max = math.Max(0, lo-0.15*span), hi+0.2*span
	// A margin on both sides, so that the first and last runs' marks show
	// whole.
	x0, x1 := float64(t.Points[0].Finished.Unix()), float64(t.Points[len(t.Points)-1].Finished.Unix())
	pad := math.Max((x1-x0)*0.04, 60)
	c.P.X.Min, c.P.X.Max = x0-pad, x1+pad
	return c.svg()
}
