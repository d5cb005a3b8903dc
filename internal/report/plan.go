package report

import (
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// PlotKind is what a plot shows.
type PlotKind string

// The kinds of plots, chosen by the data.
const (
	// PlotLines is a metric against message size on log-log axes, a curve
	// per run (OSU, IMB: seed 001's on-node vs off-node).
	PlotLines PlotKind = "lines"
	// PlotBoxes is the spread over repetitions, a box per run at each
	// message size or test (seed 002).
	PlotBoxes PlotKind = "boxes"
	// PlotBars is medians per test, a bar per run (fio workloads per machine
	// type, seed 000; the tuning ladder, one bar per run in order, seed 003).
	PlotBars PlotKind = "bars"
	// PlotRatios is a comparison's ratios against message size, a curve per
	// group (seed 001: off-VM / on-VM latency per machine type).
	PlotRatios PlotKind = "ratios"
	// PlotScaling is a figure against the number of processes that ran it,
	// a line per test (seed 004: bandwidth by dd processes and IOR ranks).
	PlotScaling PlotKind = "scaling"
)

// minBoxRepetitions is how many repetitions a box plot needs (fewer have no
// quartiles worth drawing).
const minBoxRepetitions = 3

// Plot is one figure of the HTML report.
type Plot struct {
	ID      string
	Kind    PlotKind
	Title   string
	XLabel  string
	YLabel  string
	Series  []string // legend entries: the labels of the runs drawn
	Caption string
	SVG     string // an <svg> element, once drawn (see Plots)

	draw func() (template.HTML, error)
}

// point is one run's figure at one message size (or of a test without).
type point struct {
	size  float64 // bytes; -1 without
	stats results.Stats
	vals  []float64
}

// figure is one test's metric across runs, in the unit of the first run
// that has it.
type figure struct {
	test, metric, unit string
	sized              bool
	runs               []int           // runs that have it, in order
	points             map[int][]point // by run
	maxN               int             // most counted repetitions of a point
}

// figures collects the headline figures of runs, in the order they first
// appear.
func figures(runs []Run) []*figure {
	index := map[string]*figure{}
	var out []*figure
	for ri, r := range runs {
		for _, s := range r.Summaries {
			if !results.Headline(s.Metric) {
				continue
			}
			key := s.Test + "\x00" + s.Metric + "\x00" + dimension(s.Unit)
			f, ok := index[key]
			if !ok {
				f = &figure{test: s.Test, metric: s.Metric, unit: s.Unit, points: map[int][]point{}}
				index[key] = f
				out = append(out, f)
			}
			if _, seen := f.points[ri]; !seen {
				f.runs = append(f.runs, ri)
			}
			pt := point{size: msgSize(s.Labels), stats: convertStats(s.Stats, s.Unit, f.unit)}
			for _, v := range s.Values {
				pt.vals = append(pt.vals, convert(v, s.Unit, f.unit))
			}
			f.sized = f.sized || pt.size >= 0
			f.maxN = max(f.maxN, s.Stats.N)
			f.points[ri] = append(f.points[ri], pt)
		}
	}
	for _, f := range out {
		for _, ri := range f.runs {
			sort.SliceStable(f.points[ri], func(i, j int) bool { return f.points[ri][i].size < f.points[ri][j].size })
		}
	}
	return out
}

func convertStats(s results.Stats, from, to string) results.Stats {
	if from == to {
		return s
	}
	s.Median, s.Min, s.Max = convert(s.Median, from, to), convert(s.Min, from, to), convert(s.Max, from, to)
	s.Mean, s.Stddev = convert(s.Mean, from, to), convert(s.Stddev, from, to)
	return s
}

// axisLabel is a quantity and its unit: "latency (µs)".
func axisLabel(metric, unit string) string {
	metric = strings.ReplaceAll(metric, "_", " ")
	if unit == "" {
		return metric
	}
	return metric + " (" + results.DisplayUnit(unit) + ")"
}

// headlinePoint is a sized figure's one number for bar charts: the value at
// 8 bytes (else the smallest size) for latencies, the peak otherwise, as the
// benchmarks' status does. at is the size it takes (-1 for the peak).
func (f *figure) headlinePoint(ri int) (p point, at float64, ok bool) {
	pts := f.points[ri]
	if len(pts) == 0 {
		return point{}, 0, false
	}
	if !results.LowerIsBetter(f.metric) {
		best := pts[0]
		for _, p := range pts[1:] {
			if p.stats.Median > best.stats.Median {
				best = p
			}
		}
		return best, -1, true
	}
	for _, p := range pts {
		if p.size == 8 {
			return p, 8, true
		}
	}
	return pts[0], pts[0].size, true
}

// lowestPositive is the smallest value above zero in vs, NaN if none.
func lowestPositive(vs ...float64) float64 {
	lo := math.NaN()
	for _, v := range vs {
		if v > 0 && (math.IsNaN(lo) || v < lo) {
			lo = v
		}
	}
	return lo
}
