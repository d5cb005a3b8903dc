// Package report turns samples into what people read: per-run statistics
// tables, comparison (speedup) tables along each dimension the runs differ
// in (a campaign's pools, tunings and benchmarks, or a label that varies),
// within groups that differ in it alone, against a baseline value, and
// reports in Markdown, CSV and self-contained HTML with SVG plots.
//
// Samples are grouped into runs by (kind, namespace, benchmark, run_uid); a
// file from `benchwright parse` names no benchmark, so its base name does.
// Warm-up samples (label warmup=true) are never counted.
//
// The sampler's summaries of what the nodes did (label source=sampler) are
// no tool figures: they are each run's Nodes, in no plot, comparison, fit
// or CSV line, shown in a section of their own with the limits a node
// reached during a test (see limits.go), which the test's figures mention.
// A source that keeps the sampler's series (a results directory, a store
// prefix: MonitorSource) has them drawn over time, read as hostile input.
//
// Plots are drawn with gonum.org/v1/plot into SVG (vg/vgsvg) and inlined into
// the page, so a report needs no network, no fonts and no script to be read.
// gonum/plot is pure Go, released regularly by the gonum project, has log
// scales, legends and an SVG backend that escapes its text, and draws the same
// bytes for the same data (golden-testable). Categorical bars and box plots
// (min/max whiskers, as HPC papers draw them, not Tukey's 1.5 IQR) are small
// plotters of this package on top of its axes and canvas. A JavaScript
// charting library would have to be vendored into every page and tested in a
// browser; SVG from Go is tested with the rest of the code.
package report
