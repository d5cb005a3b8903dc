package figure

import (
	"fmt"
	"html/template"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// boxes draws one series of a grouped box plot: for each category the series
// has, a box from the first to the third quartile, a line at the median and
// whiskers to the minimum and maximum, in slot `slot` of `slots`.
type boxes struct {
	values      [][]float64 // per category: the repetitions' values
	slot, slots int
	color       color.RGBA
}

// fiveNumbers are min, first quartile, median, third quartile and max
// (quartiles interpolated linearly between order statistics, as R's default
// and numpy's).
func fiveNumbers(values []float64) [5]float64 {
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	q := func(p float64) float64 {
		h := p * float64(len(s)-1)
		lo := int(math.Floor(h))
		if lo+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
	}
	return [5]float64{s[0], q(0.25), q(0.5), q(0.75), s[len(s)-1]}
}

// Plot implements plot.Plotter.
func (b *boxes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for cat, vs := range b.values {
		if len(vs) == 0 {
			continue
		}
		f := fiveNumbers(vs)
		x0, x1 := span(cat, b.slot, b.slots)
		xm := trX((x0 + x1) / 2)
		r := vg.Rectangle{Min: vg.Point{X: trX(x0), Y: trY(f[1])}, Max: vg.Point{X: trX(x1), Y: trY(f[3])}}
		var w vg.Path
		whisker(&w, xm, (r.Max.X-r.Min.X)/4, r.Min.Y, trY(f[0]))
		whisker(&w, xm, (r.Max.X-r.Min.X)/4, r.Max.Y, trY(f[4]))
		strokeWhiskers(&c, w)
		fillRect(&c, r, lighter(b.color), darker(b.color))
		c.StrokeLine2(draw.LineStyle{Color: darker(b.color), Width: 2}, r.Min.X, trY(f[2]), r.Max.X, trY(f[2]))
	}
}

// DataRange implements plot.DataRanger.
func (b *boxes) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, vs := range b.values {
		for _, v := range vs {
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
	}
	return -0.5, float64(len(b.values)) - 0.5, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer.
func (b *boxes) Thumbnail(c *draw.Canvas) { swatch{b.color}.Thumbnail(c) }

// Boxes plans the spread of each run's repetitions as small multiples: a
// panel per category (a message size, a test) with its own value axis, so
// that a few percent of spread shows at every size; a box per run in each.
func Boxes(c *Categories, runs []compare.Run, title, panelsOf string) (Plot, bool) {
	p := Plot{Kind: PlotBoxes, Title: title, XLabel: "one panel per " + panelsOf, YLabel: axisLabel(c.Metric, c.unit),
		Caption: fmt.Sprintf("Spread over the counted repetitions (up to %d) at each %s, each panel with its own value axis: "+
			"boxes from the first to the third quartile, a line at the median, whiskers to the minimum and maximum.", c.MaxN, panelsOf)}
	values := make([][][]float64, len(c.Names)) // per panel, per run
	any := false
	for ci := range c.Names {
		values[ci] = make([][]float64, len(c.Runs))
		for k, ri := range c.Runs {
			if pt, ok := c.at(ri, ci); ok {
				values[ci][k] = pt.Vals
				any = any || len(pt.Vals) > 0
			}
		}
	}
	for _, ri := range c.Runs {
		p.Series = append(p.Series, runs[ri].Label())
	}
	p.Draw = func() (template.HTML, error) {
		ch := newPanels(p.Title, p.XLabel, p.YLabel, c.Names)
		for ci, perRun := range values {
			lo, hi := math.Inf(1), math.Inf(-1)
			for k, vs := range perRun {
				if len(vs) == 0 {
					continue
				}
				ch.panel(ci).Add(&boxes{color: SeriesColor(k), slot: k, slots: len(perRun), values: [][]float64{vs}})
				for _, v := range vs {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
			if !math.IsInf(lo, 0) {
				fitY(ch.panel(ci), lo, hi)
			}
		}
		for k, s := range p.Series {
			ch.addLegend(s, swatch{SeriesColor(k)})
		}
		return ch.svg()
	}
	return p, any && len(c.Runs) > 0
}
