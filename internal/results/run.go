package results

import "time"

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
}
