package figure

import (
	"html/template"
	"math"
	"strconv"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// Scaling draws a metric's medians against the number of processes, a
// line per curve, from 0.
func Scaling(f *compare.ScalingFigure) Plot {
	p := Plot{Kind: PlotScaling, Title: f.Metric + " vs processes", XLabel: "processes",
		YLabel: axisLabel(f.Metric, f.Unit),
		Caption: "Median over the counted repetitions at each number of processes (dd's processes, IOR's ranks); " +
			"a line joins the tests and runs whose names differ only in that number."}
	if f.Left > 0 {
		p.Caption += " " + strconv.Itoa(f.Left) + " more lines are not drawn (at most " + strconv.Itoa(compare.MaxCurves) + "): their figures are in the tables."
	}
	xhi, yhi := 0.0, 0.0
	for _, c := range f.Curves {
		p.Series = append(p.Series, c.Name)
		for _, xy := range c.Xys {
			xhi, yhi = math.Max(xhi, xy.X), math.Max(yhi, xy.Y)
		}
	}
	p.Draw = func() (template.HTML, error) {
		ch := newChart(p.Title, p.XLabel, p.YLabel)
		for k, c := range f.Curves {
			line, points, err := seriesLine(k, c.Xys)
			if err != nil {
				return "", err
			}
			ch.P.Add(line, points)
			ch.addLegend(c.Name, line, points)
		}
		ch.P.X.Min, ch.P.X.Max = 0, xhi*1.05
		ch.P.X.Tick.Marker = linearTicks{}
		ch.P.Y.Min, ch.P.Y.Max = 0, yhi*1.1
		return ch.svg()
	}
	return p
}
