package report

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
	// seriesBuckets: a line of more than twice as many points keeps the
	// lowest and highest of each of this many runs of points.
	seriesBuckets = 300
	// maxDrawnDevices of the disks and of the interfaces, the busiest.
	maxDrawnDevices = 6
	// maxDrawnPhases and maxDrawnNotes, the first.
	maxDrawnPhases = 200
	maxDrawnNotes  = 20
)

// MonitorRecord is one pod's series as its chart draws it: seconds from
// the series' start, lines thinned to about 2×seriesBuckets points.
type MonitorRecord struct {
	Rep       int
	Pod, Node string
	// Points and Interval are the series' (seconds); Seconds its length.
	Points            int
	Interval, Seconds float64
	Phases            []phaseSpan
	Notes             []noteMark
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

// phaseSpan is a test's stretch of the series, in seconds.
type phaseSpan struct {
	Test     string
	From, To float64
}

// noteMark is a note of the series at a time, in seconds.
type noteMark struct {
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
			m.Phases = append(m.Phases, phaseSpan{Test: ph.Test, From: from, To: to})
		}
	}
	for _, n := range s.Notes {
		if len(m.Notes) == maxDrawnNotes {
			m.LeftNotes++
			continue
		}
		m.Notes = append(m.Notes, noteMark{At: min(max(at(n.T), 0), m.Seconds), Text: n.Note})
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

// thin keeps, of a line of more than 2×seriesBuckets points, the lowest
// and the highest point of each of seriesBuckets runs of points, in order:
// the line's shape and peaks, in a page of bounded size.
func (m *MonitorRecord) thin(xys plotter.XYs) plotter.XYs {
	n := len(xys)
	if n <= 2*seriesBuckets {
		return xys
	}
	m.Thinned = true
	out := make(plotter.XYs, 0, 2*seriesBuckets)
	for b := range seriesBuckets {
		from, to := b*n/seriesBuckets, (b+1)*n/seriesBuckets
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
	return ellipsis(strings.Join(why, "; "), 600)
}
