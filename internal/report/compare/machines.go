package compare

import (
	"cmp"
	"slices"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/results"
)

// NodeMachine is a node a run ran on as its nodes.json describes it: the
// machine beneath it, and the pool and machine type it was.
type NodeMachine struct {
	// Machine tells machines apart (nodefacts.Facts.Machine); MachineID
	// and BootID are the ids it is made of.
	Machine, MachineID, BootID string
	Pool, MachineType          string
}

// machinesOf are the machines beneath nodes, one per node. A node whose
// ids are missing or are not ids (an older manager's nodes.json, an edited
// one) gives none: nothing is known of its machine.
func machinesOf(nodes []results.NodeInfo) []NodeMachine {
	var out []NodeMachine
	for _, n := range nodes {
		f := n.Facts
		if f == nil || f.Machine() == "" || !idOrNone(f.MachineID) || !idOrNone(f.BootID) {
			continue
		}
		out = append(out, NodeMachine{Machine: f.Machine(), MachineID: f.MachineID, BootID: f.BootID, Pool: n.Pool, MachineType: n.MachineType})
	}
	return out
}

func idOrNone(id string) bool { return id == "" || nodefacts.IsID(id) }

// Pool is a pool of a report's runs: its name and its machine type.
type Pool struct{ Name, MachineType string }

// SharedMachine is one machine beneath the nodes of several pools.
type SharedMachine struct {
	// Name names the machine for people (machineNames).
	Name string
	// Pools ran on it, in the order of the runs.
	Pools []Pool
	// All says that every pool of the runs ran on it, and on no other.
	All bool
}

// SharedMachines are the machines that two or more pools of runs ran on
// (their Machines), in the order of the runs. A run's pool is its cell's,
// else its pool label, else its machine type, else its node's. Runs whose
// machines are unknown share none.
func SharedMachines(runs []Run) []SharedMachine {
	var order []NodeMachine
	byMachine := map[string][]Pool{}
	var all []string // every pool's name, its machine known or not
	for _, r := range runs {
		name := cmp.Or(r.Place[DimPool], r.Labels[results.LabelPool], r.MachineType)
		if name != "" && !slices.Contains(all, name) {
			all = append(all, name)
		}
		for _, m := range r.Machines {
			p := Pool{Name: cmp.Or(name, m.Pool, m.MachineType), MachineType: cmp.Or(r.MachineType, m.MachineType)}
			if p.Name == "" {
				continue
			}
			if !slices.Contains(all, p.Name) {
				all = append(all, p.Name)
			}
			if _, seen := byMachine[m.Machine]; !seen {
				order = append(order, m)
			}
			if !slices.ContainsFunc(byMachine[m.Machine], func(q Pool) bool { return q.Name == p.Name }) {
				byMachine[m.Machine] = append(byMachine[m.Machine], p)
			}
		}
	}
	names := machineNames(order)
	var out []SharedMachine
	for _, m := range order {
		if pools := byMachine[m.Machine]; len(pools) > 1 {
			out = append(out, SharedMachine{Name: names[m.Machine], Pools: pools, All: len(order) == 1 && len(pools) == len(all)})
		}
	}
	return out
}

// machineNames name each machine of ms for people: "machine " and the
// start of its machine id ("machine of boot " and of its boot id, without
// one); the whole id where the start would not tell two machines apart,
// and the boot id beside it where the machine id would not.
func machineNames(ms []NodeMachine) map[string]string {
	names := map[string]string{}
	forms := []func(NodeMachine) string{shortMachineName, longMachineName, bootMachineName}
	for i, name := range forms {
		count := map[string]int{}
		for _, m := range ms {
			count[name(m)]++
		}
		for _, m := range ms {
			if _, done := names[m.Machine]; !done && (count[name(m)] == 1 || i == len(forms)-1) {
				names[m.Machine] = name(m)
			}
		}
	}
	return names
}

// shortIDLength is how much of an id names its machine when that is enough.
const shortIDLength = 8

func shortMachineName(m NodeMachine) string {
	if m.MachineID == "" {
		return "machine of boot " + m.BootID[:shortIDLength]
	}
	return "machine " + m.MachineID[:shortIDLength]
}

func longMachineName(m NodeMachine) string {
	if m.MachineID == "" {
		return "machine of boot " + m.BootID
	}
	return "machine " + m.MachineID
}

func bootMachineName(m NodeMachine) string {
	if m.MachineID == "" || m.BootID == "" {
		return longMachineName(m)
	}
	return "machine " + m.MachineID + ", boot " + m.BootID
}
