package artifactserver

import (
	"strconv"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// headlineOf is a run's headline figure for the run list, "88,314 IOPS
// randread-4k-qd16" or "1.52 µs osu_latency at 8 B": the first headline
// metric of its summaries (IOPS, bandwidth, MPI latency...), a latency at
// its smallest message size, a bandwidth at its largest; "" when none.
func headlineOf(s *results.RunSummary) string {
	if s == nil {
		return ""
	}
	var best *results.Summary
	for i := range s.Summaries {
		c := &s.Summaries[i]
		if !results.Headline(c.Metric) || c.Stats.N == 0 || c.Labels[sampler.LabelSource] == sampler.SourceValue {
			continue
		}
		if best == nil {
			best = c
			continue
		}
		if c.Test != best.Test || c.Metric != best.Metric {
			continue
		}
		size, bestSize := msgSize(c), msgSize(best)
		if results.LowerIsBetter(c.Metric) == (size < bestSize) {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	h := results.FormatValue(best.Stats.Median) + " " + results.DisplayUnit(best.Unit) + " " + best.Test
	if v := best.Labels[results.LabelMsgSize]; v != "" {
		h += " at " + v + " B"
	}
	return h
}

func msgSize(s *results.Summary) int64 {
	n, _ := strconv.ParseInt(s.Labels[results.LabelMsgSize], 10, 64)
	return n
}
