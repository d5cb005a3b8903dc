package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// Thresholds of the limit notes, in percent, on a test's mean over its
// phase (the median over the counted repetitions). A figure measured while
// a resource of its node was at its limit may say more about that resource
// than about what the benchmark compares: a reader needs to know.
const (
	// LimitCoreBusy: one core this busy (iowait not counted) is a
	// single-threaded tool, or one interrupt queue, bound by its CPU.
	LimitCoreBusy = 95.0
	// LimitNodeBusy: the node's CPUs as a whole this busy.
	LimitNodeBusy = 95.0
	// LimitDiskUtil: a disk busy this share of the time (iostat's %util;
	// a device that serves requests in parallel may still have room).
	LimitDiskUtil = 95.0
	// LimitSteal: this share of the CPU time taken by the hypervisor.
	LimitSteal = 5.0
)

// Limit is a resource of a node at its limit during a test of a run.
type Limit struct {
	Test string
	// What is the resource and how busy: "one core 98 % busy", "vda at
	// 100 % utilisation".
	What string
	// Where is the node and side when the run has several: "on n1,
	// server side"; else empty.
	Where string
}

// String is the note: "vda at 100 % utilisation during randread-4k".
func (l Limit) String() string {
	s := l.What + " during " + l.Test
	if l.Where != "" {
		s += " " + l.Where
	}
	return s
}

// LimitsOf are the limits a run's nodes reached, test by test in order.
// The node's CPUs at their limit make a note of one core's needless.
func LimitsOf(r Run) []Limit {
	nodes := map[string]bool{}
	for _, s := range r.Nodes {
		nodes[s.Labels[results.LabelNode]] = true
	}
	where := func(s results.Summary) string {
		var w []string
		if n := s.Labels[results.LabelNode]; n != "" && len(nodes) > 1 {
			w = append(w, "on "+n)
		}
		if side := s.Labels[sampler.LabelSide]; side != "" {
			w = append(w, side+" side")
		}
		if len(w) == 0 {
			return ""
		}
		return "(" + strings.Join(w, ", ") + ")"
	}
	var out []Limit
	busyNode := map[string]bool{} // test and where
	for _, s := range r.Nodes {
		if s.Metric == sampler.MetricCPUUtil && s.Stats.Median >= LimitNodeBusy {
			busyNode[s.Test+"\x00"+where(s)] = true
		}
	}
	for _, s := range r.Nodes {
		v, w := s.Stats.Median, where(s)
		var what string
		switch {
		case s.Metric == sampler.MetricCPUUtil && v >= LimitNodeBusy:
			what = fmt.Sprintf("the node's CPUs %s %% busy", percent(v))
		case s.Metric == sampler.MetricBusiestCore && v >= LimitCoreBusy && !busyNode[s.Test+"\x00"+w]:
			what = fmt.Sprintf("one core %s %% busy", percent(v))
		case s.Metric == sampler.MetricDiskUtil && v >= LimitDiskUtil:
			what = fmt.Sprintf("%s at %s %% utilisation", s.Labels[sampler.LabelDevice], percent(v))
		case s.Metric == sampler.MetricSteal && v >= LimitSteal:
			what = fmt.Sprintf("steal %s %% (the hypervisor held back CPU time)", percent(v))
		default:
			continue
		}
		l := Limit{Test: s.Test, What: what, Where: w}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// AtLimit tells whether a node summary's median is at its limit.
func AtLimit(s results.Summary) bool {
	v := s.Stats.Median
	switch s.Metric {
	case sampler.MetricCPUUtil:
		return v >= LimitNodeBusy
	case sampler.MetricBusiestCore:
		return v >= LimitCoreBusy
	case sampler.MetricDiskUtil:
		return v >= LimitDiskUtil
	case sampler.MetricSteal:
		return v >= LimitSteal
	}
	return false
}

// percent prints a share: 99.6 -> "100", 7.25 -> "7".
func percent(v float64) string { return fmt.Sprintf("%.0f", v) }

// LimitsNote says what the limit notes mean.
var LimitsNote = fmt.Sprintf("Noted when, on average over a test (median over the counted repetitions), one core was ≥ %g %% busy, the node's CPUs ≥ %g %%, a disk ≥ %g %% utilised, or steal ≥ %g %%: the test's figures may measure that limit more than what is compared.",
	LimitCoreBusy, LimitNodeBusy, LimitDiskUtil, LimitSteal)

// TestLimits are a run's limits by test, each joined into one line.
func TestLimits(limits []Limit) map[string]string {
	out := map[string]string{}
	for _, l := range limits {
		what := l.What
		if l.Where != "" {
			what += " " + l.Where
		}
		if out[l.Test] != "" {
			out[l.Test] += "; "
		}
		out[l.Test] += what
	}
	return out
}
