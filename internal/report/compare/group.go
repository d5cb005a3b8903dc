package compare

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// ErrNoRuns is returned when the inputs hold no counted sample.
var ErrNoRuns = errors.New("no samples to report: every sample is a warm-up one")

// Load reads the samples of src and groups them into runs.
func Load(ctx context.Context, src source.Source) ([]Run, error) {
	g := newGrouper()
	if err := src.Samples(ctx, g.add); err != nil {
		return nil, err
	}
	return g.runs()
}

// Group groups samples into runs by (kind, namespace, benchmark, run_uid), in
// the order they first appear; samples with no benchmark take their set's
// origin name.
func Group(sets []source.Set) ([]Run, error) {
	g := newGrouper()
	for _, set := range sets {
		for _, s := range set.Samples {
			g.add(set.Origin, s)
		}
	}
	return g.runs()
}

// grouper gathers samples into runs, keeping of each only what statistics
// need, with its strings and labels shared.
type grouper struct {
	byKey  map[string]*acc
	order  []*acc
	strs   map[string]string
	sizes  map[string]map[string]string // msg_size -> the labels of a counted sample
	nodes  map[string]map[string]string // the labels of a sampler's sample, by their values
	origin map[string]string            // input -> its run name
}

// acc is a run being gathered.
type acc struct {
	run     Run
	counted []keptSample
	nodes   []keptSample // the sampler's, apart from the tool's figures
	reps    map[int]bool
	warmups map[int]bool
	machine []string
	labels  map[string]string
	origins map[string]bool
	axes    map[string]*axisSum
	procs   map[string]int // by test; -1 where its samples disagree
}

// keptSample is what Summarize needs of a counted sample.
type keptSample struct {
	test, metric, unit string
	value              float64
	rep                int
	labels             map[string]string
}

func newGrouper() *grouper {
	return &grouper{byKey: map[string]*acc{}, strs: map[string]string{}, sizes: map[string]map[string]string{},
		nodes: map[string]map[string]string{}, origin: map[string]string{}}
}

// str is s, shared with every equal string seen before.
func (g *grouper) str(s string) string {
	if x, ok := g.strs[s]; ok {
		return x
	}
	g.strs[s] = s
	return s
}

// add puts a sample of input into its run.
func (g *grouper) add(input string, s results.Sample) {
	if s.Benchmark == "" {
		name, ok := g.origin[input]
		if !ok {
			name = originName(input)
			g.origin[input] = name
		}
		s.Benchmark = name
	}
	// A NetworkBenchmark's pairs are series of their own.
	pair := s.Labels[netbench.LabelPair]
	key := s.Kind + "\x00" + s.Namespace + "\x00" + s.Benchmark + "\x00" + s.RunUID + "\x00" + pair
	a, ok := g.byKey[key]
	if !ok {
		a = &acc{run: Run{Kind: s.Kind, Namespace: s.Namespace, Benchmark: s.Benchmark, RunUID: s.RunUID, Pair: g.str(pair)},
			reps: map[int]bool{}, warmups: map[int]bool{}, origins: map[string]bool{}}
		g.byKey[key] = a
		g.order = append(g.order, a)
	}
	if !a.origins[input] {
		a.origins[input] = true
		a.run.Origins = append(a.run.Origins, input)
	}
	if s.Labels[results.LabelWarmup] == "true" {
		a.warmups[s.Repetition] = true
		return
	}
	if isSampler(s) {
		a.nodes = append(a.nodes, keptSample{test: g.str(s.Test), metric: g.str(s.Metric), unit: g.str(s.Unit),
			value: s.Value, rep: s.Repetition, labels: g.nodeLabels(s.Labels)})
		return
	}
	a.reps[s.Repetition] = true
	if m := s.Labels[results.LabelMachineType]; m != "" && !slices.Contains(a.machine, m) {
		a.machine = append(a.machine, m)
	}
	a.labels = agree(a.labels, s.Labels, len(a.counted) == 0)
	a.addAxes(s.Labels)
	a.addProcesses(s.Test, s.Labels)
	a.counted = append(a.counted, keptSample{test: g.str(s.Test), metric: g.str(s.Metric), unit: g.str(s.Unit),
		value: s.Value, rep: s.Repetition, labels: g.sizeLabels(s.Labels)})
}

// processLabels name a sample's number of processes: dd's, and IOR's
// tasks (ranks).
var processLabels = []string{results.LabelProcesses, "tasks"}

// addProcesses notes a counted sample's number of processes for its test:
// -1 once two samples of the test disagree, or one says none.
func (a *acc) addProcesses(test string, labels map[string]string) {
	n := -1
	for _, k := range processLabels {
		if v, err := strconv.Atoi(labels[k]); err == nil && v > 0 {
			n = v
			break
		}
	}
	if a.procs == nil {
		a.procs = map[string]int{}
	}
	if have, ok := a.procs[test]; ok && have != n {
		n = -1
	}
	a.procs[test] = n
}

// processes are the tests' agreed numbers of processes.
func (a *acc) processes() map[string]int {
	out := map[string]int{}
	for test, n := range a.procs {
		if n > 0 {
			out[test] = n
		}
	}
	return out
}

// sizeLabels are the labels statistics group by (msg_size), shared.
func (g *grouper) sizeLabels(labels map[string]string) map[string]string {
	size, ok := labels[results.LabelMsgSize]
	if !ok {
		return nil
	}
	l, ok := g.sizes[size]
	if !ok {
		l = map[string]string{results.LabelMsgSize: size}
		g.sizes[size] = l
	}
	return l
}

// runs computes the statistics of each run gathered.
func (g *grouper) runs() ([]Run, error) {
	var runs []Run
	for _, a := range g.order {
		if len(a.counted) == 0 {
			continue
		}
		r := a.run
		r.MachineType = strings.Join(a.machine, ", ")
		r.Labels = a.labels
		r.Repetitions, r.Warmups, r.Samples = len(a.reps), len(a.warmups), len(a.counted)
		r.Axes = a.axisValues()
		r.Processes = a.processes()
		samples := make([]results.Sample, len(a.counted))
		for i, f := range a.counted {
			value, unit := InReportUnit(f.value, f.unit)
			samples[i] = results.Sample{Test: f.test, Metric: f.metric, Unit: unit, Value: value, Repetition: f.rep, Labels: f.labels}
		}
		a.counted = nil
		r.Summaries = results.Summarize(samples, results.SummarizeOptions{GroupBy: []string{results.LabelMsgSize}})
		r.Nodes, a.nodes = nodeSummaries(a.nodes), nil
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, ErrNoRuns
	}
	nameRuns(runs)
	return runs, nil
}

// agree keeps the run labels every sample so far has with the same value.
func agree(have, labels map[string]string, first bool) map[string]string {
	if first {
		have = map[string]string{}
		for _, k := range runLabels {
			if v := labels[k]; v != "" {
				have[k] = v
			}
		}
		for k, v := range labels { // a benchmark's own labels: maybe a dimension
			if strings.HasPrefix(k, results.LabelAxisPrefix) && v != "" {
				have[k] = v
			}
		}
		return have
	}
	for k, v := range have {
		if labels[k] != v {
			delete(have, k)
		}
	}
	return have
}

// nameRuns gives each run a unique name: its benchmark (and pair), then its
// UID's start, then its position.
func nameRuns(runs []Run) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Benchmark+r.Pair]++
	}
	seen := map[string]bool{}
	for i := range runs {
		r := &runs[i]
		r.Name = r.Benchmark
		if r.Pair != "" {
			r.Name += " " + r.Pair
			if scope := r.Labels[netbench.LabelScope]; scope != "" {
				r.Name += " " + scope
			}
		}
		if count[r.Benchmark+r.Pair] > 1 {
			if uid := r.RunUID; uid != "" {
				r.Name = fmt.Sprintf("%s@%s", r.Benchmark, uid[:min(8, len(uid))])
			} else if r.Namespace != "" {
				r.Name = r.Namespace + "/" + r.Benchmark
			}
		}
		for n := 2; seen[r.Name]; n++ {
			r.Name = fmt.Sprintf("%s#%d", r.Benchmark, n)
		}
		seen[r.Name] = true
	}
}

// originName is the run name of an input's samples that name no benchmark:
// the file's base name without extension, or its directory's name for a
// samples.ndjson.
func originName(origin string) string {
	base := filepath.Base(origin)
	if base == source.SamplesFile {
		base = filepath.Base(filepath.Dir(origin))
	}
	for _, ext := range []string{".ndjson", ".jsonl", ".json"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
