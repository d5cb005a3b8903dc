// Package figure draws a report's charts as SVG, a kind of chart a file:
// bars and boxes per category (Bars, Boxes, BarPanels, PooledBoxes),
// curves against message size on log-log axes (Lines), ratios along a
// dimension (Along), a pair heatmap (Heatmap), fits (Fits), process
// scaling (Scaling), the sampler's series over a run (Monitor) and a
// configuration's history (Trend). chart.go, ticks.go and panels.go are
// the canvas, axes and small multiples every kind draws on; a Plot is a
// chart planned with its caption and drawn when the page asks.
//
// A figure takes the comparison model's values (compare) and returns SVG:
// it reads no source and knows nothing of the page it is drawn into. A
// new kind of chart is a file here returning a Plot; page chooses where it
// is shown.
//
// Charts are drawn with gonum.org/v1/plot into SVG (vg/vgsvg) and inlined
// into the page, so a report needs no network, no fonts and no script to
// be read. gonum/plot is pure Go, released regularly by the gonum project,
// has log scales, legends and an SVG backend that escapes its text, and
// draws the same bytes for the same data (golden-testable). Categorical
// bars and box plots (min/max whiskers, as HPC papers draw them, not
// Tukey's 1.5 IQR) are small plotters of this package on top of its axes
// and canvas. A JavaScript charting library would have to be vendored into
// every page and tested in a browser; SVG from Go is tested with the rest
// of the code.
package figure
