package figure

import (
	"html/template"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// categoryWidth is the share of a category's slot its bars or boxes take.
const categoryWidth = 0.8

// logSpan is the ratio of the largest to the smallest figure above which a
// bar chart's value axis is logarithmic.
const logSpan = 100

// maxSlotWidth keeps a lone bar or box from filling its category.
const maxSlotWidth = 0.4

// bars draws one series of a grouped bar chart: a bar at the median of each
// category the series has, in slot `slot` of `slots`, with a min-max whisker
// where there are several repetitions.
type bars struct {
	stats       []*results.Stats // per category; nil where the series lacks it
	slot, slots int
	color       color.RGBA
}

// span is the x extent of a slot within category cat.
func span(cat, slot, slots int) (x0, x1 float64) {
	w := math.Min(categoryWidth/float64(slots), maxSlotWidth)
	x0 = float64(cat) - w*float64(slots)/2 + float64(slot)*w
	return x0 + 0.08*w, x0 + 0.92*w
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	base := math.Max(0, p.Y.Min)
	for cat, s := range b.stats {
		if s == nil || s.Median <= base {
			continue
		}
		x0, x1 := span(cat, b.slot, b.slots)
		r := vg.Rectangle{Min: vg.Point{X: trX(x0), Y: trY(base)}, Max: vg.Point{X: trX(x1), Y: trY(s.Median)}}
		fillRect(&c, r, b.color, darker(b.color))
		if s.N > 1 && s.Max > s.Min {
			var w vg.Path
			x, lo, hi, half := trX((x0+x1)/2), trY(math.Max(s.Min, base)), trY(s.Max), (r.Max.X-r.Min.X)/4
			whisker(&w, x, half, hi, lo)
			whisker(&w, x, half, lo, hi)
			strokeWhiskers(&c, w)
		}
	}
}

// whisker adds to path a vertical line from y0 to y1 at x with a cap of
// half-width w at y1.
func whisker(path *vg.Path, x, w, y0, y1 vg.Length) {
	path.Move(vg.Point{X: x, Y: y0})
	path.Line(vg.Point{X: x, Y: y1})
	path.Move(vg.Point{X: x - w, Y: y1})
	path.Line(vg.Point{X: x + w, Y: y1})
}

// strokeWhiskers draws whisker paths, in one SVG element.
func strokeWhiskers(c *draw.Canvas, path vg.Path) {
	if len(path) == 0 {
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{0x20}, Width: 1})
	c.Stroke(path)
}

// DataRange implements plot.DataRanger: the categories, from zero (or the
// smallest minimum, for a log axis) to the largest maximum.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), 0
	for _, s := range b.stats {
		if s != nil {
			ymin, ymax = math.Min(ymin, s.Min), math.Max(ymax, s.Max)
		}
	}
	return -0.5, float64(len(b.stats)) - 0.5, math.Min(0, ymin), ymax
}

// Thumbnail implements plot.Thumbnailer.
func (b *bars) Thumbnail(c *draw.Canvas) { swatch{b.color}.Thumbnail(c) }

// Bars plans a bar per run in each category at its median, with min-max
// whiskers. With one category and several runs (a tuning ladder) the runs
// are the categories, in order.
func Bars(c *Categories, runs []compare.Run, title string) (Plot, bool) {
	if len(c.Runs) == 0 {
		return Plot{}, false
	}
	ladder := len(c.Names) == 1 && len(c.Runs) > 1
	p := Plot{Kind: PlotBars, Title: title, XLabel: "test", YLabel: axisLabel(c.Metric, c.unit),
		Caption: "Median over the counted repetitions; whiskers from the minimum to the maximum."}
	names := c.Names
	if ladder {
		p.XLabel, names = c.Names[0]+" (runs in order)", nil
		drawn := make([]compare.Run, len(c.Runs))
		for k, ri := range c.Runs {
			drawn[k] = runs[ri]
		}
		if _, steps := compare.LadderOf(drawn); steps != nil {
			p.Caption += compare.LadderCaption(steps)
		}
	}
	series := make([][]*results.Stats, len(c.Runs))
	var lows []float64
	hi := 0.0
	for k, ri := range c.Runs {
		p.Series = append(p.Series, runs[ri].Label())
		if ladder {
			names = append(names, runs[ri].Name)
			series[k] = make([]*results.Stats, len(c.Runs))
			pt, _ := c.at(ri, 0)
			series[k][k] = &pt.Stats
		} else {
			series[k] = make([]*results.Stats, len(c.Names))
			for ci := range c.Names {
				if pt, ok := c.at(ri, ci); ok {
					series[k][ci] = &pt.Stats
				}
			}
		}
		for _, s := range series[k] {
			if s != nil {
				lows = append(lows, s.Median, s.Min)
				hi = math.Max(hi, s.Max)
			}
		}
	}
	if len(c.missing) > 0 {
		var left []string
		for _, ri := range c.missing {
			left = append(left, runs[ri].Label())
		}
		p.Caption += " Not drawn, having no figure at that size: " + strings.Join(left, ", ") + "."
	}
	lo := lowestPositive(lows...)
	logY := !math.IsNaN(lo) && hi/lo > logSpan && allPositive(lows)
	if logY {
		p.Caption += " Logarithmic value axis: the figures span more than " + strconv.Itoa(logSpan) + "x."
	}
	p.Draw = func() (template.HTML, error) {
		ch := newChart(p.Title, p.XLabel, p.YLabel)
		for k, stats := range series {
			b := &bars{stats: stats, color: SeriesColor(k), slot: k, slots: len(series)}
			if ladder {
				b.slot, b.slots = 0, 1
			}
			ch.P.Add(b)
			ch.addLegend(p.Series[k], b)
		}
		ch.nominalX(names)
		if logY {
			ch.P.Y.Scale, ch.P.Y.Tick.Marker = plot.LogScale{}, log10Ticks{}
			ch.P.Y.Min, ch.P.Y.Max = math.Pow10(int(math.Floor(math.Log10(lo/2)))), hi*1.5
		} else {
			ch.P.Y.Min, ch.P.Y.Max = 0, hi*1.05
		}
		return ch.svg()
	}
	return p, true
}

func allPositive(vs []float64) bool {
	for _, v := range vs {
		if v <= 0 {
			return false
		}
	}
	return true
}
