package results

import (
	"math"
	"sort"
	"strings"
)

// Stats summarises one figure over repetitions.
type Stats struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"` // sample standard deviation (n-1)
	CV     float64 `json:"cv"`     // stddev / mean, in percent
}

// Compute returns the statistics of values (zero Stats for none).
func Compute(values []float64) Stats {
	n := len(values)
	if n == 0 {
		return Stats{}
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	s := Stats{N: n, Min: sorted[0], Max: sorted[n-1]}
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	s.Mean = sum / float64(n)
	if n > 1 {
		var ss float64
		for _, v := range values {
			d := v - s.Mean
			ss += d * d
		}
		s.Stddev = math.Sqrt(ss / float64(n-1))
	}
	if s.Mean != 0 {
		s.CV = s.Stddev / math.Abs(s.Mean) * 100
	}
	return s
}

// Summary is one figure's statistics over the counted repetitions.
type Summary struct {
	Test   string            `json:"test"`
	Metric string            `json:"metric"`
	Unit   string            `json:"unit"`
	Labels map[string]string `json:"labels,omitempty"` // the GroupBy labels
	Stats  Stats             `json:"stats"`
	Values []float64         `json:"values"` // per counted repetition, in repetition order
}

// SummarizeOptions says which samples count and how they are grouped.
type SummarizeOptions struct {
	// WarmupRepetitions drops samples of repetitions 0..WarmupRepetitions-1.
	WarmupRepetitions int
	// GroupBy are label keys that split a test's metric into several figures,
	// e.g. msg_size for MPI tests.
	GroupBy []string
}

// Summarize groups samples by test, metric, unit and the GroupBy labels, and
// computes statistics over repetitions. Samples of one repetition in the same
// group (several nodes) are summed for throughput metrics (IOPS, bandwidth) and
// averaged otherwise, so each repetition contributes one value. The result is
// ordered by first appearance.
func Summarize(samples []Sample, opts SummarizeOptions) []Summary {
	z := NewSummarizer(opts)
	for i := range samples {
		z.Add(&samples[i])
	}
	return z.Summaries()
}

// Summarizer is Summarize one sample at a time, holding values, not samples.
type Summarizer struct {
	opts   SummarizeOptions
	groups map[string]*summaryGroup
	order  []string
}

type summaryGroup struct {
	summary Summary
	reps    map[int][]float64
	order   []int
}

// NewSummarizer starts an empty summary.
func NewSummarizer(opts SummarizeOptions) *Summarizer {
	return &Summarizer{opts: opts, groups: map[string]*summaryGroup{}}
}

// Add counts one sample.
func (z *Summarizer) Add(s *Sample) {
	if s.Repetition < z.opts.WarmupRepetitions {
		return
	}
	var kb strings.Builder
	kb.WriteString(s.Test + "\x00" + s.Metric + "\x00" + s.Unit)
	for _, k := range z.opts.GroupBy {
		if v, ok := s.Labels[k]; ok {
			kb.WriteString("\x00" + k + "=" + v)
		}
	}
	key := kb.String()
	g, ok := z.groups[key]
	if !ok {
		g = &summaryGroup{summary: Summary{Test: s.Test, Metric: s.Metric, Unit: s.Unit}, reps: map[int][]float64{}}
		for _, k := range z.opts.GroupBy {
			if v, ok := s.Labels[k]; ok {
				if g.summary.Labels == nil {
					g.summary.Labels = map[string]string{}
				}
				g.summary.Labels[k] = v
			}
		}
		z.groups[key] = g
		z.order = append(z.order, key)
	}
	if _, seen := g.reps[s.Repetition]; !seen {
		g.order = append(g.order, s.Repetition)
	}
	g.reps[s.Repetition] = append(g.reps[s.Repetition], s.Value)
}

// Summaries are the statistics of the samples added.
func (z *Summarizer) Summaries() []Summary {
	out := make([]Summary, 0, len(z.order))
	for _, key := range z.order {
		g := z.groups[key]
		sort.Ints(g.order)
		s := g.summary
		s.Values = make([]float64, 0, len(g.order))
		for _, rep := range g.order {
			s.Values = append(s.Values, Combine(s.Metric, g.reps[rep]))
		}
		s.Stats = Compute(s.Values)
		out = append(out, s)
	}
	return out
}

// Combine folds the values of one repetition (one per node or process):
// the sum of a throughput, else the mean.
func Combine(metric string, values []float64) float64 {
	var sum float64
	for _, v := range values {
		sum += v
	}
	if IsThroughput(metric) {
		return sum
	}
	return sum / float64(len(values))
}

// IsThroughput tells whether a metric adds up across nodes (IOPS, bandwidth).
func IsThroughput(metric string) bool {
	return strings.HasSuffix(metric, "_iops") || strings.HasSuffix(metric, "_bw") || metric == "bw" ||
		metric == "bandwidth" || metric == "bibandwidth" || metric == "message_rate"
}

// LowerIsBetter tells whether smaller values of a metric are better (latencies,
// durations).
func LowerIsBetter(metric string) bool {
	return strings.Contains(metric, "lat") || strings.HasSuffix(metric, "_seconds") || strings.HasSuffix(metric, "_runtime") || metric == "seconds"
}
