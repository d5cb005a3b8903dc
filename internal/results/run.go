package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/topology"
)

// RunSummary is summary.json: the statistics of every figure over the counted
// repetitions, and what they were measured on. The local executor and the
// controllers write the same document.
type RunSummary struct {
	Kind      string     `json:"kind"`
	Namespace string     `json:"namespace,omitempty"`
	Name      string     `json:"name"`
	RunUID    string     `json:"run_uid"`
	Started   time.Time  `json:"started"`
	Finished  time.Time  `json:"finished"`
	Nodes     []NodeInfo `json:"nodes"`
	Summaries []Summary  `json:"summaries"`
	// Labels are the benchmark object's labels (its campaign, and the
	// campaign's pool, tuning and benchmark names): what the results
	// database groups runs by once the object is gone.
	Labels map[string]string `json:"labels,omitempty"`
}

// NodeInfo is one entry of nodes.json: a machine the figures were measured on.
// Fields a source does not know stay empty.
type NodeInfo struct {
	Hostname    string `json:"hostname"`
	MachineType string `json:"machine_type"`
	Zone        string `json:"zone,omitempty"`
	Pool        string `json:"pool,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
	OSImage     string `json:"os_image,omitempty"`
	CPUModel    string `json:"cpu_model,omitempty"`
	CPUs        int    `json:"cpus,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	SMTActive   string `json:"smt_active,omitempty"`
	THP         string `json:"transparent_hugepage,omitempty"`
	// Placement and ThreadsPerCore are what the provider reports for the
	// node's pool (GKE: COMPACT, 1 = SMT off).
	Placement      string `json:"placement,omitempty"`
	ThreadsPerCore int    `json:"threads_per_core,omitempty"`
	// Tuning is the TuningProfile applied, and its values as they read back
	// on this node (name -> value).
	Tuning         string            `json:"tuning,omitempty"`
	TuningSettings map[string]string `json:"tuning_settings,omitempty"`
	// Topology is the node's CPU topology as a NetworkBenchmark's pod read
	// it: which CPUs form which chiplet and socket.
	Topology *topology.Topology `json:"topology,omitempty"`
	// AllowedCPUs is that pod's cpuset.
	AllowedCPUs string `json:"allowed_cpus,omitempty"`
	// Facts are what benchwright read on the node at the start of the
	// repetition (in the cluster: the benchmark pod's node-facts step):
	// mitigations, SELinux, MTU, effective CPU frequency.
	Facts *nodefacts.Facts `json:"facts,omitempty"`
	// Windows are when each repetition's tool ran on the node (the pod's
	// containers' start and end, the sampler's aside), by repetition.
	Windows []Window `json:"windows,omitempty"`
	// FirewallRules is the count of the host network namespace's iptables
	// and nftables rules, as the TuningProfile's tuner counted it (it alone
	// has CAP_NET_ADMIN there), or "unknown".
	FirewallRules string `json:"firewall_rules,omitempty"`
}

// FirewallUnknown is FirewallRules where nobody could count them.
const FirewallUnknown = "unknown"

// Sample labels that describe the node settings a figure was measured with.
const (
	LabelPlacement      = "placement"
	LabelThreadsPerCore = "threads_per_core"
	// LabelCPUMHz is the node's effective CPU frequency at the start of the
	// repetition (nodefacts.Facts.CPUMHz); report code plots against it.
	LabelCPUMHz = "cpu_mhz"
	// LabelBoost is whether the node's CPUs could turbo ("on", "off"), where
	// cpufreq says (nodefacts.Facts.Boost): fits of figures against the
	// frequency are per machine type and boost setting.
	LabelBoost = "cpu_boost"
	// The node facts a tuning ladder changes (see NodeLabels).
	LabelSMT           = "smt_active"
	LabelMitigations   = "mitigations"
	LabelFirewallRules = "firewall_rules"
	LabelMTU           = "mtu"
	LabelSELinux       = "selinux"
)

// NodeLabels are the sample labels of a node's settings and facts.
func (n NodeInfo) NodeLabels() map[string]string {
	out := map[string]string{}
	if n.Placement != "" {
		out[LabelPlacement] = n.Placement
	}
	if n.ThreadsPerCore > 0 {
		out[LabelThreadsPerCore] = fmt.Sprint(n.ThreadsPerCore)
	}
	if n.FirewallRules != "" {
		out[LabelFirewallRules] = n.FirewallRules
	}
	f := n.Facts
	if f == nil {
		return out
	}
	if f.CPUMHz > 0 {
		out[LabelCPUMHz] = strconv.FormatFloat(f.CPUMHz, 'f', -1, 64)
	}
	if f.SMTActive != "" {
		out[LabelSMT] = f.SMTActive
	}
	switch f.Boost {
	case "1":
		out[LabelBoost] = "on"
	case "0":
		out[LabelBoost] = "off"
	}
	if m := nodefacts.Summary(f.Mitigations); m != "" {
		out[LabelMitigations] = m
	}
	if f.MTU > 0 {
		out[LabelMTU] = strconv.Itoa(f.MTU)
	}
	if f.SELinux != "" {
		out[LabelSELinux] = f.SELinux
	}
	return out
}

// RunFile is one of a run's result files, encoded.
type RunFile struct {
	Name, ContentType string
	Data              []byte
}

// Result file names, the same in a local results directory and in the store.
const (
	SamplesNDJSONFile = "samples.ndjson"
	SamplesCSVFile    = "samples.csv"
	SummaryFile       = "summary.json"
	NodesFile         = "nodes.json"
)

// EncodeRunFiles encodes a run's samples and summary into samples.ndjson,
// samples.csv, summary.json and nodes.json (the summary's nodes).
func EncodeRunFiles(samples []Sample, summary RunSummary) ([]RunFile, error) {
	var nd, csv bytes.Buffer
	if err := WriteNDJSON(&nd, samples); err != nil {
		return nil, err
	}
	if err := WriteCSV(&csv, samples); err != nil {
		return nil, err
	}
	files, err := EncodeSummaryFiles(summary)
	if err != nil {
		return nil, err
	}
	return append([]RunFile{
		{SamplesNDJSONFile, "application/x-ndjson", nd.Bytes()},
		{SamplesCSVFile, "text/csv", csv.Bytes()},
	}, files...), nil
}

// EncodeSummaryFiles encodes a run's summary.json and nodes.json.
func EncodeSummaryFiles(summary RunSummary) ([]RunFile, error) {
	sum, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		return nil, err
	}
	nodes, err := json.MarshalIndent(summary.Nodes, "", "  ")
	if err != nil {
		return nil, err
	}
	return []RunFile{
		{SummaryFile, "application/json", append(sum, '\n')},
		{NodesFile, "application/json", append(nodes, '\n')},
	}, nil
}
