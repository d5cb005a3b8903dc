package resultsdb

import (
	"maps"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
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
// I/O shape, the process count, the tool. The axis labels (x-NAME, the
// author's own dimensions) are in every identity too.
var DefaultIdentity = []string{
	results.LabelMachineType, results.LabelPlacement, results.LabelThreadsPerCore,
	results.LabelMPI, results.LabelMsgSize, results.LabelRW, results.LabelBlockSize,
	results.LabelIODepth, results.LabelNumJobs, results.LabelProcesses,
	results.LabelDirection, results.LabelTool,
}

// Identity tells configurations apart: DefaultIdentity, the axis labels,
// and Extra.
type Identity struct {
	// Extra are more label keys that make runs incomparable, for a user
	// whose setups differ by something else (a node label, a kernel).
	Extra []string
}

// config is the configuration of a sample of the run.
func (id Identity) config(r runRow, test, metric, unit string, labels map[string]string) Config {
	c := Config{Kind: r.kind, Namespace: r.namespace, Series: r.series, Pool: r.pool, Tuning: r.tuning,
		Test: test, Metric: metric, Unit: unit, Labels: map[string]string{}}
	for k, v := range labels {
		if strings.HasPrefix(k, results.LabelAxisPrefix) || slices.Contains(DefaultIdentity, k) || slices.Contains(id.Extra, k) {
			c.Labels[k] = v
		}
	}
	return c
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
