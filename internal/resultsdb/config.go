package resultsdb

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// Config is a configuration: what makes two runs' figures comparable. Its
// runs over time are a history, and a change in that history is a change
// of the system under test (a node image, a kernel, a driver), because the
// setup stayed the same.
//
// It is the run's kind, namespace and series (the benchmark's name as its
// author wrote it), its pool and tuning, the figure's test, metric and unit,
// and the values of the identity labels (DefaultIdentity, and those a user
// adds). What may change between runs of one configuration stays out of it:
// the node, the kernel and image, the measured frequency, the campaign's
// generated names, the repetition and attempt.
type Config struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Series    string `json:"series"`
	Pool      string `json:"pool,omitempty"`
	Tuning    string `json:"tuning,omitempty"`
	Test      string `json:"test"`
	Metric    string `json:"metric"`
	Unit      string `json:"unit"`
	// Labels are the identity labels the samples carry, by key.
	Labels map[string]string `json:"labels,omitempty"`
}

// DefaultIdentity are the sample labels that describe a figure's setup:
// the machine type and the pool's settings, the MPI, the message size and
// I/O shape, the process and node counts, the tool. The axis labels (x-NAME, the
// author's own dimensions) are in every identity too.
var DefaultIdentity = defaultIdentity{
	results.LabelMachineType, results.LabelPlacement, results.LabelThreadsPerCore,
	results.LabelMPI, results.LabelMsgSize, results.LabelRW, results.LabelBlockSize,
	results.LabelIODepth, results.LabelNumJobs, results.LabelProcesses,
	results.LabelDirection, results.LabelTool,
	// A distributed run's node count (absent for one node, so the keys of
	// single-node histories are those they always had).
	results.LabelNodes,
	// What the nodes did (the sampler's summaries): apart from the tool's
	// figures, per device, interface and side.
	sampler.LabelSource, sampler.LabelDevice, sampler.LabelIface, sampler.LabelSide,
}

// Figure says whether a configuration is one of the tool's headline
// figures (IOPS, bandwidth, latency...), not the sampler's summary of what
// the nodes did: what histories are checked and drawn for.
func (c Config) Figure() bool {
	return results.Headline(c.Metric) && c.Labels[sampler.LabelSource] != sampler.SourceValue
}

// Identity tells configurations apart: the database keys every sample by
// DefaultIdentity's configuration; a query's Extra labels split those
// further.
type Identity struct {
	// Extra are more label keys that make runs incomparable, for a user
	// whose setups differ by something else (a node label, a kernel).
	Extra []string
}

// defaultIdentity are DefaultIdentity's labels.
type defaultIdentity []string

// Of is the configuration of a sample of the run: a benchmark outside a
// campaign takes its pool and tuning from the sample's labels.
func (id defaultIdentity) Of(run Run, s results.Sample) Config {
	c := Config{Kind: run.Kind, Namespace: run.Namespace, Series: cmp.Or(run.Series, run.Name),
		Pool: cmp.Or(run.Pool, s.Labels[results.LabelPool]), Tuning: cmp.Or(run.Tuning, s.Labels[results.LabelTuning]),
		Test: s.Test, Metric: s.Metric, Unit: s.Unit, Labels: map[string]string{}}
	for k, v := range s.Labels {
		if strings.HasPrefix(k, results.LabelAxisPrefix) || slices.Contains(id, k) {
			c.Labels[k] = v
		}
	}
	return c
}

// sampleKey tells apart, within one run, the samples of different
// configurations (the run's own fields are the same for all): Of and Key
// for each sample would cost the indexing more than its SQL.
func (id defaultIdentity) sampleKey(s results.Sample) string {
	var b strings.Builder
	b.WriteString(s.Test + "\x00" + s.Metric + "\x00" + s.Unit + "\x00" + s.Labels[results.LabelPool] + "\x00" + s.Labels[results.LabelTuning])
	for _, k := range id {
		b.WriteString("\x00" + s.Labels[k])
	}
	var axes []string
	for k := range s.Labels {
		if strings.HasPrefix(k, results.LabelAxisPrefix) {
			axes = append(axes, k)
		}
	}
	slices.Sort(axes)
	for _, k := range axes {
		b.WriteString("\x00" + k + "=" + s.Labels[k])
	}
	return b.String()
}

// ID is the configuration's key in the database: a hash of Key.
func (c Config) ID() string {
	sum := sha256.Sum256([]byte(c.Key()))
	return hex.EncodeToString(sum[:16])
}

// Key is the configuration as one string, equal for equal configurations.
func (c Config) Key() string {
	var b strings.Builder
	for _, f := range []string{c.Kind, c.Namespace, c.Series, c.Pool, c.Tuning, c.Test, c.Metric, c.Unit} {
		b.WriteString(f)
		b.WriteByte(0)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Labels)) {
		b.WriteString(k + "=" + c.Labels[k])
		b.WriteByte(0)
	}
	return b.String()
}

// String names the configuration for a person: "StorageBenchmark
// team-a/fio pool=c3 randread-4k read_iops (machine_type=c3-standard-8)".
func (c Config) String() string {
	name := c.Series
	if c.Namespace != "" {
		name = c.Namespace + "/" + name
	}
	parts := []string{c.Kind, name}
	if c.Pool != "" {
		parts = append(parts, "pool="+c.Pool)
	}
	if c.Tuning != "" {
		parts = append(parts, "tuning="+c.Tuning)
	}
	parts = append(parts, c.Test, c.Metric)
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(c.Labels)) {
		labels = append(labels, k+"="+c.Labels[k])
	}
	if len(labels) > 0 {
		parts = append(parts, "("+strings.Join(labels, ", ")+")")
	}
	return strings.Join(parts, " ")
}
