package local

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/benchwright/benchwright/internal/results"
)

// PrintTable writes the headline figures of summaries as an aligned table:
// names left-aligned, figures right-aligned.
func PrintTable(w io.Writer, summaries []results.Summary) error {
	rows := [][]string{{"TEST", "METRIC", "MEDIAN", "MIN", "MAX", "CV", "N", "UNIT"}} // as `benchwright results`
	for _, s := range summaries {
		if !results.Headline(s.Metric) {
			continue
		}
		rows = append(rows, []string{s.Test, s.Metric, results.FormatValue(s.Stats.Median), results.FormatValue(s.Stats.Min),
			results.FormatValue(s.Stats.Max), results.FormatCV(s.Stats), fmt.Sprint(s.Stats.N), results.DisplayUnit(s.Unit)})
	}
	return writeAligned(w, rows, func(col int) bool { return col < 2 || col == 7 }) // names and unit
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
