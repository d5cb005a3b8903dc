package local

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// PrintTable writes the headline figures of summaries as an aligned table:
// names left-aligned, figures right-aligned.
func PrintTable(w io.Writer, summaries []results.Summary) error {
	rows := [][]string{{"TEST", "METRIC", "MEDIAN", "MIN", "MAX", "CV", "N", "UNIT"}} // as `benchwright results`
	var nodes []results.Summary
	for _, s := range summaries {
		if s.Labels[sampler.LabelSource] == sampler.SourceValue {
			nodes = append(nodes, s)
			continue
		}
		if !results.Headline(s.Metric) {
			continue
		}
		rows = append(rows, []string{s.Test, s.Metric, results.FormatValue(s.Stats.Median), results.FormatValue(s.Stats.Min),
			results.FormatValue(s.Stats.Max), results.FormatCV(s.Stats), fmt.Sprint(s.Stats.N), results.DisplayUnit(s.Unit)})
	}
	if err := writeAligned(w, rows, func(col int) bool { return col < 2 || col == 7 }); err != nil { // names and unit
		return err
	}
	return printNodes(w, nodes)
}

// printNodes says, per test, what the machine did (the sampler's medians):
// its CPUs, its busiest core and each disk that worked.
func printNodes(w io.Writer, summaries []results.Summary) error {
	var tests []string
	figures := map[string][]string{}
	for _, s := range summaries {
		var shown string
		switch s.Metric {
		case sampler.MetricCPUUtil:
			shown = fmt.Sprintf("CPU %.0f %%", s.Stats.Median)
		case sampler.MetricBusiestCore:
			shown = fmt.Sprintf("busiest core %.0f %%", s.Stats.Median)
		case sampler.MetricDiskUtil:
			shown = fmt.Sprintf("%s %.0f %% busy", s.Labels[sampler.LabelDevice], s.Stats.Median)
		default:
			continue
		}
		if _, ok := figures[s.Test]; !ok {
			tests = append(tests, s.Test)
		}
		figures[s.Test] = append(figures[s.Test], shown)
	}
	for _, t := range tests {
		if _, err := fmt.Fprintf(w, "  the machine during %s: %s\n", t, strings.Join(figures[t], ", ")); err != nil {
			return err
		}
	}
	return nil
}

// writeAligned writes rows as columns two spaces apart: left-aligned where
// left says so, right-aligned otherwise.
func writeAligned(w io.Writer, rows [][]string, left func(col int) bool) error {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if left(i) {
				c += pad
				if i == len(r)-1 {
					c = strings.TrimRight(c, " ")
				}
			} else {
				c = pad + c
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
