package figure

import (
	"html/template"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// labelRoom is how far above 100 % the CPU panel goes: a strip for the
// tests' names, above the lines.
const labelRoom = 18

// Monitor draws a record's series as stacked panels over the same
// seconds: the node's CPU and its busiest core, each busy disk's
// utilisation, each interface's MB/s; the tests shaded behind them.
func Monitor(m compare.MonitorRecord) (template.HTML, error) {
	c := newLegendChart()
	c.title, c.xLabel = m.Title(), "seconds from the series' start"
	k := 0
	add := func(p *plot.Plot, name string, xys plotter.XYs, width vg.Length) error {
		if len(xys) == 0 {
			return nil
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		line.Color, line.Width = SeriesColor(k), width
		if k >= len(palette) {
			line.Dashes = []vg.Length{5, 3}
		}
		k++
		p.Add(line)
		c.addLegend(name, line)
		return nil
	}
	var panels []*plot.Plot
	panel := func(name string, hi float64) *plot.Plot {
		p := newPlot("", "", "", 8)
		p.Add(phaseBands{phases: m.Phases, notes: m.Notes, labelled: len(panels) == 0})
		p.X.Min, p.X.Max = 0, max(m.Seconds, 1)
		p.X.Tick.Marker = unlabelled{linearTicks{}}
		p.Y.Min, p.Y.Max = 0, hi
		panels = append(panels, p)
		c.panelNames = append(c.panelNames, name)
		return p
	}
	cpu := panel("node CPU utilisation (%)", 100+labelRoom)
	if err := add(cpu, "node CPU", m.CPU, 1.5); err != nil {
		return "", err
	}
	if err := add(cpu, "busiest core", m.Busiest, 1); err != nil {
		return "", err
	}
	if len(m.Disks) > 0 {
		p := panel("disk utilisation (%)", 100)
		for _, d := range m.Disks {
			if err := add(p, "disk "+d.Name, d.XYs, 1.25); err != nil {
				return "", err
			}
		}
	}
	if len(m.Nets) > 0 {
		hi := 0.0
		for _, n := range m.Nets {
			for _, xy := range n.XYs {
				hi = max(hi, xy.Y)
			}
		}
		p := panel("network (MB/s, received + sent)", hi*1.08)
		for _, n := range m.Nets {
			if err := add(p, "net "+n.Name, n.XYs, 1.25); err != nil {
				return "", err
			}
		}
	}
	last := panels[len(panels)-1]
	last.X.Tick.Marker = linearTicks{}
	for _, p := range panels {
		c.panels = append(c.panels, []*plot.Plot{p})
	}
	c.height = vg.Length(len(panels))*(panelHeight+panelTitle) + 50
	return c.svg()
}
