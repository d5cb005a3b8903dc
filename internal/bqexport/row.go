package bqexport

import (
	"maps"
	"slices"
	"time"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// Row is a row of the table: one sample, with its run's metadata. Its json
// names are the columns. A field tagged bq:"required" is REQUIRED and always
// written; a slice is REPEATED; any other field is NULLABLE and left out
// when empty. desc is the column's description.
type Row struct {
	RunUID     string     `json:"run_uid" bq:"required" desc:"The run's UID: a run's rows share it; (run_uid, seq) is a row's key."`
	Kind       string     `json:"kind" bq:"required" desc:"StorageBenchmark, MPIBenchmark or NetworkBenchmark."`
	Namespace  string     `json:"namespace" bq:"required"`
	Name       string     `json:"name" bq:"required" desc:"The benchmark object's name."`
	Benchmark  string     `json:"benchmark" bq:"required" desc:"The benchmark's name as written (a campaign cell's: its campaign's entry)."`
	Campaign   string     `json:"campaign,omitempty" desc:"The campaign (Argo Workflow) the run was a cell of."`
	Pool       string     `json:"pool,omitempty"`
	Tuning     string     `json:"tuning,omitempty"`
	Started    Timestamp  `json:"started" bq:"required"`
	Finished   Timestamp  `json:"finished" bq:"required" desc:"When the run finished: partition by its day."`
	Location   string     `json:"location" bq:"required" desc:"The run's prefix in the artifact store."`
	ConfigID   string     `json:"config_id" bq:"required" desc:"The configuration: what makes runs' figures comparable."`
	Seq        int        `json:"seq" bq:"required" desc:"The sample's place in its run, from 1."`
	Test       string     `json:"test" bq:"required"`
	Metric     string     `json:"metric" bq:"required"`
	Value      float64    `json:"value" bq:"required"`
	Unit       string     `json:"unit" bq:"required"`
	Repetition int        `json:"repetition" bq:"required"`
	Warmup     bool       `json:"warmup" bq:"required" desc:"A warm-up repetition's sample, which statistics leave out."`
	SampleTime *Timestamp `json:"sample_time,omitempty" desc:"The tool's timestamp of the sample."`
	Labels     []Label    `json:"labels,omitempty" desc:"The sample's labels, by key."`
	Nodes      []Node     `json:"nodes,omitempty" desc:"The run's nodes, as read at its start."`
}

// Label is a key and its value.
type Label struct {
	Key   string `json:"key" bq:"required"`
	Value string `json:"value" bq:"required"`
}

// Node is what a run recorded of one of its nodes (results.NodeInfo less
// its topology and facts).
type Node struct {
	Hostname       string  `json:"hostname" bq:"required"`
	MachineType    string  `json:"machine_type,omitempty"`
	Zone           string  `json:"zone,omitempty"`
	Pool           string  `json:"pool,omitempty"`
	Kernel         string  `json:"kernel,omitempty"`
	OSImage        string  `json:"os_image,omitempty"`
	CPUModel       string  `json:"cpu_model,omitempty"`
	CPUs           int     `json:"cpus,omitempty"`
	MemoryBytes    int64   `json:"memory_bytes,omitempty"`
	SMTActive      string  `json:"smt_active,omitempty"`
	THP            string  `json:"transparent_hugepage,omitempty"`
	Placement      string  `json:"placement,omitempty"`
	ThreadsPerCore int     `json:"threads_per_core,omitempty"`
	Tuning         string  `json:"tuning,omitempty" desc:"The TuningProfile applied."`
	TuningSettings []Label `json:"tuning_settings,omitempty" desc:"The tuning's values as they read back on the node."`
	AllowedCPUs    string  `json:"allowed_cpus,omitempty"`
	FirewallRules  string  `json:"firewall_rules,omitempty"`
}

// Timestamp is a TIMESTAMP column: UTC, to the microsecond, as BigQuery
// writes and loads them ("2026-11-20 02:10:00.000000 UTC").
type Timestamp struct{ time.Time }

// TimestampLayout is how a Timestamp is written.
const TimestampLayout = "2006-01-02 15:04:05.000000 UTC"

// MarshalJSON writes the time in TimestampLayout.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(TimestampLayout) + `"`), nil
}

// rowOf is the row of a sample; nodes are its run's, converted once.
func rowOf(s resultsdb.StoredSample, nodes []Node) Row {
	r := s.Run
	row := Row{
		RunUID: r.UID, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Benchmark: r.Series,
		Campaign: r.Campaign, Pool: r.Pool, Tuning: r.Tuning,
		Started: Timestamp{r.Started}, Finished: Timestamp{r.Finished}, Location: r.Location,
		ConfigID: s.ConfigID, Seq: s.Seq, Test: s.Test, Metric: s.Metric, Value: s.Value, Unit: s.Unit,
		Repetition: s.Repetition, Warmup: s.Warmup, Labels: labelsOf(s.Labels), Nodes: nodes,
	}
	if !s.Time.IsZero() {
		row.SampleTime = &Timestamp{s.Time}
	}
	return row
}

// labelsOf is m as labels sorted by key.
func labelsOf(m map[string]string) []Label {
	out := make([]Label, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Label{Key: k, Value: m[k]})
	}
	return out
}

// nodesOf is a run's nodes as rows carry them.
func nodesOf(infos []results.NodeInfo) []Node {
	out := make([]Node, 0, len(infos))
	for _, n := range infos {
		out = append(out, Node{
			Hostname: n.Hostname, MachineType: n.MachineType, Zone: n.Zone, Pool: n.Pool, Kernel: n.Kernel,
			OSImage: n.OSImage, CPUModel: n.CPUModel, CPUs: n.CPUs, MemoryBytes: n.MemoryBytes,
			SMTActive: n.SMTActive, THP: n.THP, Placement: n.Placement, ThreadsPerCore: n.ThreadsPerCore,
			Tuning: n.Tuning, TuningSettings: labelsOf(n.TuningSettings), AllowedCPUs: n.AllowedCPUs,
			FirewallRules: n.FirewallRules,
		})
	}
	return out
}
