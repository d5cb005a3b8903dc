package report

import (
	"fmt"
	"html/template"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// labelRoom is how far above 100 % the CPU panel goes: a strip for the
// tests' names, above the lines.
const labelRoom = 18

// Title of a record's chart: "repetition 1: pod fio-0 on node n1".
func (m MonitorRecord) Title() string {
	s := fmt.Sprintf("repetition %d: pod %s", m.Rep+1, m.Pod)
	if m.Node != "" {
		s += " on node " + m.Node
	}
	return s
}

// Caption says what the chart shows and leaves out.
func (m MonitorRecord) Caption() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d point(s), one every %g s", m.Points, m.Interval)
	if m.Thinned {
		fmt.Fprintf(&b, " (drawn: the lowest and highest of each of %d runs of points)", seriesBuckets)
	}
	b.WriteString("; each test shaded and named")
	if m.LeftPhases > 0 {
		fmt.Fprintf(&b, " (the first %d; %d more not drawn)", maxDrawnPhases, m.LeftPhases)
	}
	b.WriteString(". Disks: utilisation, the busiest; network: MB/s received and sent, per interface.")
	if m.LeftDisks+m.LeftNets > 0 {
		fmt.Fprintf(&b, " Not drawn: %d quieter disk(s), %d quieter interface(s).", m.LeftDisks, m.LeftNets)
	}
	if len(m.Notes) > 0 {
		b.WriteString(" Notes (dashed):")
		for i, n := range m.Notes {
			fmt.Fprintf(&b, " %d. at %.1f s, %s;", i+1, n.At, n.Text)
		}
		if m.LeftNotes > 0 {
			fmt.Fprintf(&b, " and %d more", m.LeftNotes)
		}
		s := strings.TrimSuffix(b.String(), ";")
		b.Reset()
		b.WriteString(s + ".")
	}
	return b.String()
}

// maxListed is how many tests and notes a record's line in Markdown
// lists.
const maxListed = 8

// Summary is the record in a line, for Markdown: its points, its tests'
// and its notes' times.
func (m MonitorRecord) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d point(s), one every %g s", m.Points, m.Interval)
	phases := make([]string, len(m.Phases))
	for i, ph := range m.Phases {
		phases[i] = fmt.Sprintf("%s %.1f–%.1f s", ph.Test, ph.From, ph.To)
	}
	notes := make([]string, len(m.Notes))
	for i, n := range m.Notes {
		notes[i] = fmt.Sprintf("at %.1f s %s", n.At, n.Text)
	}
	listUpTo(&b, "tests", phases, m.LeftPhases)
	listUpTo(&b, "notes", notes, m.LeftNotes)
	return b.String() + "."
}

// listUpTo writes "; label: a, b, ..." with at most maxListed items, then
// how many more there are (left were never read).
func listUpTo(b *strings.Builder, label string, items []string, left int) {
	for i, item := range items {
		if i == maxListed {
			fmt.Fprintf(b, ", and %d more", len(items)-maxListed+left)
			return
		}
		sep := ", "
		if i == 0 {
			sep = "; " + label + ": "
		}
		b.WriteString(sep + item)
	}
}

// monitorChart draws a record's series as stacked panels over the same
// seconds: the node's CPU and its busiest core, each busy disk's
// utilisation, each interface's MB/s; the tests shaded behind them.
func monitorChart(m MonitorRecord) (template.HTML, error) {
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
		line.Color, line.Width = seriesColor(k), width
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
