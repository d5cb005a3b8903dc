package page

import (
	"fmt"
	"math"
	"strconv"

	"github.com/benchwright/benchwright/internal/results"
)

// formatValue prints a figure as `benchwright run` does; "-" for none.
func formatValue(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return results.FormatValue(v)
}

// formatCount prints a count with thousands separators.
func formatCount(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return results.FormatValue(float64(n))
}

// formatSpeedup prints a speedup with about three significant digits, and
// says how many times slower below 1: 2.6 -> "2.60x", 0.0133 -> "0.0133x
// (75.2x slower)".
func formatSpeedup(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "-"
	}
	if s >= 0.995 {
		return times(s)
	}
	return fmt.Sprintf("%.3gx (%s slower)", s, times(1/s))
}

// formatRatio is a plain ratio: "75.2x", "0.0133x".
func formatRatio(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "-"
	}
	if s >= 0.995 {
		return times(s)
	}
	return fmt.Sprintf("%.3gx", s)
}

// formatBound is a bound of a ratio's interval, to three digits.
func formatBound(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func times(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0fx", s)
	case s >= 10:
		return fmt.Sprintf("%.1fx", s)
	}
	return fmt.Sprintf("%.2fx", s)
}

// direction says which way a metric is better, for table headers.
func direction(lowerIsBetter bool) string {
	if lowerIsBetter {
		return "lower"
	}
	return "higher"
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
