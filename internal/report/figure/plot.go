package figure

import (
	"html/template"
	"math"
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

// MinBoxRepetitions is how many repetitions a box plot needs (fewer have no
// quartiles worth drawing).
const MinBoxRepetitions = 3

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

	Draw func() (template.HTML, error)
}

// axisLabel is a quantity and its unit: "latency (µs)".
func axisLabel(metric, unit string) string {
	metric = strings.ReplaceAll(metric, "_", " ")
	if unit == "" {
		return metric
	}
	return metric + " (" + results.DisplayUnit(unit) + ")"
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
