package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchwright/benchwright/internal/interference"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/results"
)

// Run is one run of a benchmark: its counted figures and what it ran on.
type Run struct {
	// Name is unique among the runs of a report: the benchmark, with the
	// start of the run UID when two runs share a benchmark.
	Name      string
	Kind      string
	Namespace string
	Benchmark string
	RunUID    string
	// Pair is a NetworkBenchmark's pair ("n0:c0 -> n0:c8"): each pair of a
	// run is a run of the report, a series of its plots.
	Pair string
	// MachineType is the machine_type labels of its samples, joined by ", ".
	MachineType string
	// Labels are the run-wide labels (campaign, pool, tuning, MPI) every
	// counted sample agrees on.
	Labels map[string]string
	// Place is the run's cell in its campaign, by dimension (DimPool,
	// DimTuning, DimBenchmark); nil outside a campaign.
	Place map[string]string
	// Axes are the run's numeric axis labels (cpu_mhz, x-NAME): the mean of
	// each over the counted samples, when every one has it as a number.
	Axes map[string]float64
	// Origins are the inputs its samples came from.
	Origins []string
	// Repetitions and Warmups count the counted and the warm-up
	// repetitions; Samples the counted samples.
	Repetitions, Warmups, Samples int
	// Summaries are the statistics of each test and metric (at each message
	// size) over the counted repetitions, in the order the samples came.
	Summaries []results.Summary
	// Processes are, by test, how many processes ran it (dd's processes,
	// IOR's tasks) where every counted sample of the test says the same.
	Processes map[string]int
	// Nodes are the sampler's summaries of what the nodes did during each
	// test (samples labelled source=sampler), per side, node, device and
	// interface, over the counted repetitions. They are never among
	// Summaries: never in the figures' plots, tables, comparisons or fits.
	Nodes []results.Summary
	// Monitor is the sampler's series of the run, once ReadMonitors has
	// read them.
	Monitor Monitor
	// Beside says whether the run shared its machine with another run at
	// the same time, or others used its machine's CPU, once ReadBeside has
	// read its nodes and series; the zero Mark when nothing is known.
	Beside interference.Mark
	// Machines are the machines beneath its nodes, once ReadBeside has
	// read its nodes; nil when none is known.
	Machines []NodeMachine
}

// Label is how plots and column headers name the run: its name, with the
// machine type when the name does not say it.
func (r Run) Label() string {
	if r.MachineType == "" || strings.Contains(r.Name, r.MachineType) {
		return r.Name
	}
	return r.Name + " (" + r.MachineType + ")"
}

// runLabels are the labels that describe a run as a whole.
var runLabels = []string{results.LabelCampaign, results.LabelPool, results.LabelTuning, results.LabelMPI,
	results.LabelPlacement, results.LabelThreadsPerCore, results.LabelBoost,
	results.LabelSMT, results.LabelMitigations, results.LabelFirewallRules, results.LabelMTU, results.LabelSELinux,
	netbench.LabelScope, netbench.LabelProvider, netbench.LabelServerChiplet, netbench.LabelClientChiplet,
	netbench.LabelServerSocket, netbench.LabelClientSocket, netbench.LabelServerNode, netbench.LabelClientNode}

// Find is the index of the run named name (its Name, or its Benchmark when
// only one run has it).
func Find(runs []Run, name string) (int, error) {
	found := -1
	for i, r := range runs {
		if r.Name == name {
			return i, nil
		}
		if r.Benchmark == name {
			if found >= 0 {
				return -1, fmt.Errorf("several runs of %q: name one of %s", name, strings.Join(names(runs), ", "))
			}
			found = i
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("no run named %q (runs: %s)", name, strings.Join(names(runs), ", "))
	}
	return found, nil
}

func names(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.Name
	}
	sort.Strings(out)
	return out
}
