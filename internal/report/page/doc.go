// Package page writes what people read. A Report (New) chooses what a
// report shows: the headline, a campaign's cells, per-run statistics,
// the comparisons along each dimension, ladders, fits, the limits and
// series of the nodes, trends and which charts draw them (Plots); its
// HTML, Markdown and CSV methods write it, the HTML as one self-contained
// page (report.html.tmpl, the charts' SVG inlined). The standalone writers
// (WriteText, WriteCSV, WriteCompareCSV, WriteCompareMarkdown,
// WriteAlongText ...) serve `benchwright results` and `benchwright compare`.
// Tables are grids (grid.go) written as text, Markdown or HTML.
//
// A page assembles the layers below it (source, compare, figure) and
// computes nothing of its own: a new section of the report goes here, its
// numbers in compare and its chart in figure.
package page
