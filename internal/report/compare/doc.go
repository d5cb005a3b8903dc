// Package compare is the model of a comparison: samples grouped into runs
// (Load, Group), the ways the runs differ (Dimension: a campaign's pools,
// tunings and benchmarks, or a label that varies, each with a baseline),
// each run against a baseline (With, and Along: within groups that
// differ in that dimension alone), tuning ladders, least-squares fits
// against a numeric label (Fits), per-run statistics (Table), a campaign's
// cells, the limits a run's nodes reached, a run's series from the sampler
// (Monitor), a configuration's history (Trend), and the curves a chart
// draws of them (Figures, RatioFigures, ScalingFigures).
//
// Samples are grouped into runs by (kind, namespace, benchmark, run_uid); a
// file from `benchwright parse` names no benchmark, so its base name does.
// Warm-up samples (label warmup=true) are never counted. The sampler's
// summaries of what the nodes did (label source=sampler) are no tool
// figures: they are each run's Nodes, in no comparison, fit or figure,
// with the limits a node reached during a test (LimitsOf).
//
// Everything here is a function of samples that returns plain values; it
// reads only through the source package's interfaces (Load, RunLabels,
// ReadMonitors), draws nothing and writes no page. A new way to compare
// runs goes here; figure draws it and page shows it. A comparison row's
// statistics (its ratios, their intervals, what is unclear) are computed
// in one place, Row.decide in ratio.go.
package compare
