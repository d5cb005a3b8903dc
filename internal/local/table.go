package local

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// headlineSuffixes are the metrics the results table shows; every other figure is
// in the result files.
var headlineSuffixes = []string{"_iops", "_bw", "_clat_mean", "_clat_p99", "_lat_mean"}

// PrintTable writes the headline figures of summaries as an aligned table:
// names left-aligned, figures right-aligned.
func PrintTable(w io.Writer, summaries []results.Summary) error {
	rows := [][]string{{"TEST", "METRIC", "MEDIAN", "MIN", "MAX", "CV", "UNIT", "N"}}
	for _, s := range summaries {
		if !isHeadline(s.Metric) {
			continue
		}
		rows = append(rows, []string{s.Test, s.Metric, FormatValue(s.Stats.Median), FormatValue(s.Stats.Min),
			FormatValue(s.Stats.Max), FormatCV(s.Stats), s.Unit, fmt.Sprint(s.Stats.N)})
	}
	return writeAligned(w, rows, func(col int) bool { return col < 2 || col == 6 }) // names and unit
}

// writeAligned writes rows as columns two spaces apart: left-aligned where
// left says so, right-aligned otherwise.
func writeAligned(w io.Writer, rows [][]string, left func(col int) bool) error {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len(c))
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

func isHeadline(metric string) bool {
	for _, suffix := range headlineSuffixes {
		if strings.HasSuffix(metric, suffix) {
			return !strings.HasPrefix(metric, "trim")
		}
	}
	return false
}

// FormatCV prints the coefficient of variation, "-" below two repetitions.
func FormatCV(s results.Stats) string {
	if s.N < 2 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", s.CV)
}

// FormatValue prints a figure with about four significant digits and thousands
// separators: 41234.7 -> "41,235", 123.456 -> "123.5", 0.01234 -> "0.01234".
func FormatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return groupThousands(fmt.Sprintf("%.0f", v))
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	case a >= 1:
		return fmt.Sprintf("%.3f", v)
	case a == 0:
		return "0"
	}
	return fmt.Sprintf("%.4g", v)
}

func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
