// Package source reads where a report's runs come from: samples files and
// the directories `benchwright run` writes (Files), an artifact store's run
// prefixes (StoreRuns), samples already fetched from the manager or the
// results database (Fetched), and several of them as one (Join, Sources).
// Beside a run's samples it reads the benchmark labels its summary.json
// keeps (LabelSource) and lists the sampler's series files (MonitorSource,
// MonitorFile).
//
// A source hands samples and files by the input they came from; it knows
// nothing of runs, comparisons, charts or pages, and imports no other
// layer of the report. A new place runs come from is a Source here.
package source
