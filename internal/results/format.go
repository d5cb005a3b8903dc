package results

import (
	"fmt"
	"math"
	"strings"
)

// How figures are printed, the same in the CLI's tables and the HTML report.

// FormatCV prints the coefficient of variation, "-" below two repetitions.
func FormatCV(s Stats) string {
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

// headlineMetrics and headlineSuffixes name the figures tables and plots show
// by default; every figure is in the result files, the CSV and with --all.
var (
	headlineMetrics  = []string{"latency", "bandwidth", "bibandwidth", "message_rate", "bw", "iops"}
	headlineSuffixes = []string{"_iops", "_bw", "_clat_mean", "_clat_p99"}
)

// Headline tells whether a metric is one of the figures shown by default:
// IOPS, bandwidths, mean and p99 completion latency, MPI latency and
// bandwidth (not their min/max over ranks).
func Headline(metric string) bool {
	for _, m := range headlineMetrics {
		if metric == m {
			return true
		}
	}
	for _, s := range headlineSuffixes {
		if strings.HasSuffix(metric, s) && !strings.HasPrefix(metric, "trim") {
			return true
		}
	}
	return false
}

// DisplayUnit is a unit as people write it: "us" is µs.
func DisplayUnit(unit string) string {
	if unit == "us" {
		return "µs"
	}
	return unit
}
