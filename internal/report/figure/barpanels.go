package figure

import (
	"html/template"
	"math"

	"gonum.org/v1/plot/vg/draw"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// barPanelColumns are a bar figure's panels a row: their titles carry the
// metric and its unit.
const barPanelColumns = 4

// BarPanels plans the figures of tests without message sizes as small
// multiples: a panel per metric (its own value axis, from 0), the tests
// that have it side by side, a bar per run at its median with min-max
// whiskers. One figure instead of a page per metric.
func BarPanels(cs []*Categories, runs []compare.Run, title string) (Plot, bool) {
	p := Plot{Kind: PlotBars, Title: title, XLabel: "test", YLabel: "median (whiskers: min to max)",
		Caption: "A panel per metric, each with its own value axis from 0: the median over the counted repetitions of each test and run; whiskers from the minimum to the maximum."}
	var order []int // runs, in order of first appearance
	seen := map[int]bool{}
	var names []string
	for _, c := range cs {
		names = append(names, c.Metric+" ("+results.DisplayUnit(c.unit)+")")
		for _, ri := range c.Runs {
			if !seen[ri] {
				seen[ri] = true
				order = append(order, ri)
			}
		}
	}
	if len(order) == 0 {
		return Plot{}, false
	}
	for _, ri := range order {
		p.Series = append(p.Series, runs[ri].Label())
	}
	p.Draw = func() (template.HTML, error) {
		ch := newPanelsOf(barPanelColumns, p.Title, p.XLabel, p.YLabel, names)
		for i, c := range cs {
			panel := ch.panel(i)
			hi := 0.0
			for k, ri := range order {
				stats := make([]*results.Stats, len(c.Names))
				for ci := range c.Names {
					if pt, ok := c.at(ri, ci); ok {
						stats[ci] = &pt.Stats
						hi = math.Max(hi, pt.Stats.Max)
					}
				}
				panel.Add(&bars{stats: stats, color: SeriesColor(k), slot: k, slots: len(order)})
			}
			labels := make([]string, len(c.Names))
			for ci, n := range c.Names {
				labels[ci] = compare.Ellipsis(n, 18)
			}
			panel.NominalX(labels...)
			panel.X.Tick.Label.Font = sans(7)
			panel.X.Tick.Label.Rotation = math.Pi / 2
			panel.X.Tick.Label.XAlign, panel.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
			panel.X.Min, panel.X.Max = -0.5, float64(len(c.Names))-0.5
			if hi > 0 {
				fitY(panel, 0, hi)
				panel.Y.Min = 0
			}
		}
		for k := range order {
			ch.addLegend(p.Series[k], swatch{SeriesColor(k)})
		}
		return ch.svg()
	}
	return p, true
}
