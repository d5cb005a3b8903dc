package local

import (
	"cmp"
	"io"
	"slices"
	"strconv"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

// mainMetrics are, by preference, the metric the table shows for a test:
// latency for latency tests and collectives, else the (bi)bandwidth; for IOR
// the bandwidth.
var mainMetrics = map[benchv1.MPISuite][]string{
	benchv1.SuiteOSU: {"latency", "bibandwidth", "bandwidth"},
	benchv1.SuiteIMB: {"latency", "bibandwidth", "bandwidth"},
	benchv1.SuiteIOR: {"bandwidth", "bandwidth_mean"},
}

// PrintMPITable writes each test's main metric at every message size as an
// aligned table; every other figure is in the result files.
func PrintMPITable(w io.Writer, suite benchv1.MPISuite, summaries []results.Summary) error {
	metrics := map[string][]string{} // test -> its metrics, in order
	for _, s := range summaries {
		if !slices.Contains(metrics[s.Test], s.Metric) {
			metrics[s.Test] = append(metrics[s.Test], s.Metric)
		}
	}
	rows := [][]string{{"TEST", "METRIC", "MSG_SIZE", "MEDIAN", "MIN", "MAX", "CV", "N", "UNIT"}} // as `benchwright results`
	for _, s := range summaries {
		if s.Metric != mainMetric(mainMetrics[suite], metrics[s.Test]) {
			continue
		}
		rows = append(rows, []string{s.Test, s.Metric, cmp.Or(s.Labels[results.LabelMsgSize], "-"),
			results.FormatValue(s.Stats.Median), results.FormatValue(s.Stats.Min), results.FormatValue(s.Stats.Max), results.FormatCV(s.Stats),
			strconv.Itoa(s.Stats.N), results.DisplayUnit(s.Unit)})
	}
	return writeAligned(w, rows, func(col int) bool { return col < 2 || col == 8 })
}

// mainMetric is the first preferred metric a test has, else its first.
func mainMetric(preferred, have []string) string {
	for _, m := range preferred {
		if slices.Contains(have, m) {
			return m
		}
	}
	if len(have) == 0 {
		return ""
	}
	return have[0]
}
