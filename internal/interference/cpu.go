package interference

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// DefaultThreshold is the CPU others may use on a run's machine during a
// repetition, in cores, before the repetition counts as disturbed: 10 % of
// a core.
const DefaultThreshold = 0.10

// Sample is one sampler interval on a node, as one of a run's pods saw it.
type Sample struct {
	// End is the interval's end; Seconds its length.
	End     time.Time
	Seconds float64
	// NodeBusy is the CPU the whole machine used (idle, iowait and steal
	// aside), and Own the CPU of the pod's own processes; both in cores.
	NodeBusy, Own float64
}

// SamplesOf are the samples of a sampler's series: its points that have
// both the node's CPU and the pod's (a series read without --procs has no
// pod CPU, and gives none).
func SamplesOf(s sampler.Series) []Sample {
	idx := fieldIndex(s.Header.Fields["cpu"], "idle", "iowait", "steal")
	podCPU := slices.Index(s.Header.Fields["pod"], "cpu")
	if idx == nil || podCPU < 0 {
		return nil
	}
	var out []Sample
	for _, p := range s.Points {
		cores := 0
		for _, c := range p.Cores {
			if c != nil {
				cores++
			}
		}
		if p.Dt <= 0 || cores == 0 || len(p.CPU) != len(s.Header.Fields["cpu"]) || len(p.Pod) <= podCPU {
			continue
		}
		notBusy := 0.0
		for _, i := range idx {
			notBusy += p.CPU[i]
		}
		busy := max(100-notBusy, 0) / 100 * float64(cores)
		out = append(out, Sample{End: time.UnixMilli(p.T).UTC(), Seconds: p.Dt, NodeBusy: busy, Own: p.Pod[podCPU] / 100})
	}
	return out
}

// fieldIndex is where each name is in fields; nil when one is missing.
func fieldIndex(fields []string, names ...string) []int {
	var out []int
	for _, n := range names {
		i := slices.Index(fields, n)
		if i < 0 {
			return nil
		}
		out = append(out, i)
	}
	return out
}

// Within are the samples whose interval's middle falls in the window: the
// sampler starts before the tool and stops after it.
func Within(samples []Sample, w results.Window) []Sample {
	var out []Sample
	for _, s := range samples {
		mid := s.End.Add(-time.Duration(s.Seconds * float64(time.Second) / 2))
		if !mid.Before(w.Start) && !mid.After(w.End) {
			out = append(out, s)
		}
	}
	return out
}

// SeriesOf is a stored sampler record of a run's repetition (monitor/<rep>/
// <pod>.json) as a PodSeries: on the machine of the record's node, its
// samples within the node's window of the repetition when nodes.json has
// one. ok is false when the node's machine is unknown.
func SeriesOf(rep Rep, rec sampler.Record, nodes []results.NodeInfo) (s PodSeries, ok bool) {
	i := slices.IndexFunc(nodes, func(n results.NodeInfo) bool { return n.Hostname == rec.Node })
	if i < 0 || nodes[i].Facts == nil || nodes[i].Facts.Machine() == "" {
		return PodSeries{}, false
	}
	s = PodSeries{Rep: rep, Machine: nodes[i].Facts.Machine(), Pod: rec.Pod, Samples: SamplesOf(rec.Series)}
	if w := slices.IndexFunc(nodes[i].Windows, func(w results.Window) bool { return w.Repetition == rep.Repetition }); w >= 0 {
		s.Samples = Within(s.Samples, nodes[i].Windows[w])
	}
	return s, true
}

// PodSeries are the samples of one of a run's pods during one repetition,
// on the machine beneath its node.
type PodSeries struct {
	Rep
	Machine, Pod string
	Samples      []Sample
}

// Share is how much of a machine's CPU processes other than the run's own
// used during a repetition.
type Share struct {
	Rep
	Machine string
	// Others is the CPU others used, in cores: the machine's busy CPU
	// (a time-weighted mean over the repetition, averaged over the run's
	// pods that watched the machine) less the run's own pods' (the sum of
	// each pod's time-weighted mean); never below zero.
	Others float64
	// Disturbed says Others was above the threshold.
	Disturbed bool
}

// Shares are the CPU others used on each run's machines during each
// repetition, by run, repetition and machine; a repetition is disturbed
// when others used more than threshold cores (DefaultThreshold when not
// above zero). A series without samples counts for nothing.
func Shares(series []PodSeries, threshold float64) []Share {
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	type key struct {
		Rep
		machine string
	}
	type sums struct {
		busy, own float64
		watchers  int
	}
	byKey := map[key]*sums{}
	for _, s := range series {
		busy, own, ok := means(s.Samples)
		if !ok {
			continue
		}
		k := key{s.Rep, s.Machine}
		if byKey[k] == nil {
			byKey[k] = &sums{}
		}
		byKey[k].busy += busy
		byKey[k].own += own
		byKey[k].watchers++
	}
	out := make([]Share, 0, len(byKey))
	for k, s := range byKey {
		others := max(s.busy/float64(s.watchers)-s.own, 0)
		out = append(out, Share{Rep: k.Rep, Machine: k.machine, Others: others, Disturbed: others > threshold})
	}
	slices.SortFunc(out, func(a, b Share) int { return cmp.Or(compareReps(a.Rep, b.Rep), strings.Compare(a.Machine, b.Machine)) })
	return out
}

// means are the time-weighted means of a pod's samples.
func means(samples []Sample) (busy, own float64, ok bool) {
	var t float64
	for _, s := range samples {
		busy += s.NodeBusy * s.Seconds
		own += s.Own * s.Seconds
		t += s.Seconds
	}
	if t <= 0 {
		return 0, 0, false
	}
	return busy / t, own / t, true
}
