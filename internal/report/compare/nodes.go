package compare

import (
	"maps"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// isSampler tells the sampler's summary samples (what a node did during a
// test) from the tool's figures.
func isSampler(s results.Sample) bool {
	return s.Labels[sampler.LabelSource] == sampler.SourceValue
}

// nodeLabels keep the sampler's summaries apart: a network pair's side or
// an MPI pod's role, the node, the device and the interface.
var nodeLabels = []string{sampler.LabelSide, results.LabelNode, sampler.LabelDevice, sampler.LabelIface}

// nodeLabels are a sampler sample's nodeLabels, shared with every sample
// that has the same.
func (g *grouper) nodeLabels(labels map[string]string) map[string]string {
	var key strings.Builder
	for _, k := range nodeLabels {
		key.WriteString(labels[k] + "\x00")
	}
	l, ok := g.nodes[key.String()]
	if !ok {
		l = map[string]string{}
		for _, k := range nodeLabels {
			if v := labels[k]; v != "" {
				l[k] = g.str(v)
			}
		}
		g.nodes[key.String()] = l
	}
	return l
}

// nodeSummaries are the statistics of the sampler's samples over the
// counted repetitions, per test, metric, unit and nodeLabels, in the order
// they came. Two samples of one repetition in a group (two pods of a node
// on the same side) are the same node's: they are averaged, never added as
// a tool's throughput is.
func nodeSummaries(kept []keptSample) []results.Summary {
	type group struct {
		summary results.Summary
		reps    map[int][]float64
	}
	index := map[string]*group{}
	var order []*group
	for _, k := range kept {
		var key strings.Builder
		key.WriteString(k.test + "\x00" + k.metric + "\x00" + k.unit)
		for _, l := range nodeLabels {
			key.WriteString("\x00" + k.labels[l])
		}
		g, ok := index[key.String()]
		if !ok {
			g = &group{summary: results.Summary{Test: k.test, Metric: k.metric, Unit: k.unit, Labels: k.labels}, reps: map[int][]float64{}}
			index[key.String()] = g
			order = append(order, g)
		}
		g.reps[k.rep] = append(g.reps[k.rep], k.value)
	}
	out := make([]results.Summary, 0, len(order))
	for _, g := range order {
		s := g.summary
		for _, rep := range slices.Sorted(maps.Keys(g.reps)) {
			s.Values = append(s.Values, mean(g.reps[rep]))
		}
		s.Stats = results.Compute(s.Values)
		out = append(out, s)
	}
	return out
}

func mean(vs []float64) float64 {
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}
