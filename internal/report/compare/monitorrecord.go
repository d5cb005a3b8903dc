package compare

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/benchwright/benchwright/internal/sampler"
)

// Bounds on what a record's chart draws.
const (
	// SeriesBuckets: a line of more than twice as many points keeps the
	// lowest and highest of each of this many runs of points.
	SeriesBuckets = 300
	// maxDrawnDevices of the disks and of the interfaces, the busiest.
	maxDrawnDevices = 6
	// maxDrawnPhases and maxDrawnNotes, the first.
	maxDrawnPhases = 200
	maxDrawnNotes  = 20
)

// MonitorRecord is one pod's series as its chart draws it: seconds from
// the series' start, lines thinned to about 2×SeriesBuckets points.
type MonitorRecord struct {
	Rep       int
	Pod, Node string
	// Points and Interval are the series' (seconds); Seconds its length.
	Points            int
	Interval, Seconds float64
	Phases            []PhaseSpan
	Notes             []NoteMark
	// CPU is the node's utilisation, Busiest its busiest core's; Disks
	// each busy disk's utilisation, Nets each interface's MB/s (rx + tx).
	CPU, Busiest plotter.XYs
	Disks, Nets  []namedLine
	// Thinned says a line kept only each stretch's lowest and highest.
	Thinned bool
	// Left counts what was not drawn: phases, notes, disks, interfaces.
	LeftPhases, LeftNotes, LeftDisks, LeftNets int
	// Incomplete says why the series does not cover the pod's whole run;
	// empty when it does.
	Incomplete string
}

// PhaseSpan is a test's stretch of the series, in seconds.
type PhaseSpan struct {
	Test     string
	From, To float64
}

// NoteMark is a note of the series at a time, in seconds.
type NoteMark struct {
	At   float64
	Text string
}

// namedLine is a disk's or an interface's line.
type namedLine struct {
	Name string
	XYs  plotter.XYs
}

// Indexes of the fields the chart draws.
var (
	diskUtilField = slices.Index(sampler.DiskFields, "util")
	netRxField    = slices.Index(sampler.NetFields, "rx_mbps")
	netTxField    = slices.Index(sampler.NetFields, "tx_mbps")
)

// newMonitorRecord is the chart of rec, repetition rep, shading phases.
func newMonitorRecord(rep int, rec sampler.Record, phases []sampler.Phase) MonitorRecord {
	s := rec.Series
	start := s.Header.Start
	m := MonitorRecord{Rep: rep, Pod: rec.Pod, Node: rec.Node, Points: len(s.Points), Interval: s.Header.Interval}
	at := func(ms int64) float64 { return float64(ms-start) / 1000 }
	if n := len(s.Points); n > 0 {
		m.Seconds = at(s.Points[n-1].T)
	}
	disks, nets := map[string]plotter.XYs{}, map[string]plotter.XYs{}
	for _, p := range s.Points {
		x := at(p.T) - p.Dt/2 // the middle of the point's interval
		if u, ok := p.Util(); ok {
			m.CPU = append(m.CPU, plotter.XY{X: x, Y: u})
		}
		if b, ok := p.BusiestCore(); ok {
			m.Busiest = append(m.Busiest, plotter.XY{X: x, Y: b})
		}
		for name, d := range p.Disks {
			disks[name] = append(disks[name], plotter.XY{X: x, Y: d[diskUtilField]})
		}
		for name, n := range p.Nets {
			nets[name] = append(nets[name], plotter.XY{X: x, Y: n[netRxField] + n[netTxField]})
		}
	}
	m.Disks, m.LeftDisks = busiest(disks)
	m.Nets, m.LeftNets = busiest(nets)
	m.CPU, m.Busiest = m.thin(m.CPU), m.thin(m.Busiest)
	for i := range m.Disks {
		m.Disks[i].XYs = m.thin(m.Disks[i].XYs)
	}
	for i := range m.Nets {
		m.Nets[i].XYs = m.thin(m.Nets[i].XYs)
	}
	for _, ph := range phases {
		from, to := max(at(ph.StartMs), 0), min(at(ph.EndMs), m.Seconds)
		switch {
		case to <= from:
		case len(m.Phases) == maxDrawnPhases:
			m.LeftPhases++
		default:
			m.Phases = append(m.Phases, PhaseSpan{Test: ph.Test, From: from, To: to})
		}
	}
	for _, n := range s.Notes {
		if len(m.Notes) == maxDrawnNotes {
			m.LeftNotes++
			continue
		}
		m.Notes = append(m.Notes, NoteMark{At: min(max(at(n.T), 0), m.Seconds), Text: n.Note})
	}
	m.Incomplete = incomplete(rec)
	return m
}

// busiest are the lines that are ever above zero, the maxDrawnDevices
// highest first (then by name), and how many more there are.
func busiest(lines map[string]plotter.XYs) ([]namedLine, int) {
	peak := map[string]float64{}
	for name, xys := range lines {
		for _, xy := range xys {
			peak[name] = max(peak[name], xy.Y)
		}
	}
	var out []namedLine
	for _, name := range slices.Sorted(maps.Keys(lines)) {
		if peak[name] > 0 {
			out = append(out, namedLine{Name: name, XYs: lines[name]})
		}
	}
	slices.SortStableFunc(out, func(a, b namedLine) int { return cmp.Compare(peak[b.Name], peak[a.Name]) })
	if len(out) > maxDrawnDevices {
		return out[:maxDrawnDevices], len(out) - maxDrawnDevices
	}
	return out, 0
}

// thin keeps, of a line of more than 2×SeriesBuckets points, the lowest
// and the highest point of each of SeriesBuckets runs of points, in order:
// the line's shape and peaks, in a page of bounded size.
func (m *MonitorRecord) thin(xys plotter.XYs) plotter.XYs {
	n := len(xys)
	if n <= 2*SeriesBuckets {
		return xys
	}
	m.Thinned = true
	out := make(plotter.XYs, 0, 2*SeriesBuckets)
	for b := range SeriesBuckets {
		from, to := b*n/SeriesBuckets, (b+1)*n/SeriesBuckets
		lo, hi := from, from
		for j := from; j < to; j++ {
			if xys[j].Y < xys[lo].Y {
				lo = j
			}
			if xys[j].Y > xys[hi].Y {
				hi = j
			}
		}
		out = append(out, xys[min(lo, hi)])
		if lo != hi {
			out = append(out, xys[max(lo, hi)])
		}
	}
	return out
}

// incomplete says why rec's series does not cover its pod's run.
func incomplete(rec sampler.Record) string {
	if rec.Complete() {
		return ""
	}
	var why []string
	if rec.Restarts > 0 {
		why = append(why, fmt.Sprintf("the sampler restarted %d time(s), the series is its last run's", rec.Restarts))
	}
	why = append(why, rec.Series.Problems...)
	return Ellipsis(strings.Join(why, "; "), 600)
}

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
		fmt.Fprintf(&b, " (drawn: the lowest and highest of each of %d runs of points)", SeriesBuckets)
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
