package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/results"
)

// on are the machines of nodes of facts, as ReadBeside reads them.
func on(facts ...*nodefacts.Facts) []NodeMachine {
	var nodes []results.NodeInfo
	for _, f := range facts {
		nodes = append(nodes, results.NodeInfo{Facts: f})
	}
	return machinesOf(nodes)
}

func dmi(id, boot string) *nodefacts.Facts {
	return &nodefacts.Facts{MachineID: id, MachineIDSource: nodefacts.MachineFromDMI, BootID: boot}
}

// A run's pool is its cell's, its pool label or its machine type; a
// machine is named by the start of its id, or as much of it (and of its
// boot id) as tells it from the report's other machines.
func TestSharedMachines(t *testing.T) {
	a, b := dmi("4c4c4544-0042-3510", "0f3c6a7e-91b2"), dmi("4c4c4544-0057-4810", "0f3c6a7e-91b2")
	rebooted := dmi("4c4c4544-0042-3510", "9b1d2e3f-4a5b")
	bootOnly := &nodefacts.Facts{BootID: "0f3c6a7e-91b2"}
	for name, tc := range map[string]struct {
		runs []Run
		want []SharedMachine
	}{
		"cells": {[]Run{{Place: map[string]string{DimPool: "c2"}, MachineType: "c2-standard-60", Machines: on(a)},
			{Place: map[string]string{DimPool: "c3"}, MachineType: "c3-highcpu-176", Machines: on(a)},
			{Place: map[string]string{DimPool: "c3"}, MachineType: "c3-highcpu-176", Machines: on(a)}},
			[]SharedMachine{{Name: "machine 4c4c4544", Pools: []Pool{{"c2", "c2-standard-60"}, {"c3", "c3-highcpu-176"}}, All: true}}},
		"labels and a pool of unknown machine": {[]Run{{Labels: map[string]string{results.LabelPool: "p1"}, Machines: on(a)},
			{MachineType: "n2", Machines: on(a)}, {MachineType: "n2d"}},
			[]SharedMachine{{Name: "machine 4c4c4544", Pools: []Pool{{"p1", ""}, {"n2", "n2"}}}}},
		"the node's pool": {[]Run{{Machines: []NodeMachine{{Machine: "m", MachineID: "4c4c4544-0042", Pool: "p1", MachineType: "e2"}}},
			{Machines: []NodeMachine{{Machine: "m", MachineID: "4c4c4544-0042", Pool: "p2", MachineType: "e2"}}}},
			[]SharedMachine{{Name: "machine 4c4c4544", Pools: []Pool{{"p1", "e2"}, {"p2", "e2"}}, All: true}}},
		"one pool's nodes on two machines": {[]Run{{MachineType: "c2", Machines: on(a, b)}, {MachineType: "c3", Machines: on(a)}},
			[]SharedMachine{{Name: "machine 4c4c4544-0042-3510", Pools: []Pool{{"c2", "c2"}, {"c3", "c3"}}}}},
		"the same machine id, rebooted": {[]Run{{MachineType: "c2", Machines: on(a)}, {MachineType: "c3", Machines: on(a)}, {MachineType: "c4", Machines: on(rebooted)}},
			[]SharedMachine{{Name: "machine 4c4c4544-0042-3510, boot 0f3c6a7e-91b2", Pools: []Pool{{"c2", "c2"}, {"c3", "c3"}}}}},
		"a boot id alone": {[]Run{{MachineType: "c2", Machines: on(bootOnly)}, {MachineType: "c3", Machines: on(bootOnly)}},
			[]SharedMachine{{Name: "machine of boot 0f3c6a7e", Pools: []Pool{{"c2", "c2"}, {"c3", "c3"}}, All: true}}},
		"one pool": {[]Run{{MachineType: "c2", Machines: on(a)}, {MachineType: "c2", Machines: on(a)}}, nil},
		"no pool":  {[]Run{{Machines: on(a)}, {Machines: on(a)}}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SharedMachines(tc.runs)); diff != "" {
				t.Errorf("SharedMachines (-want +got):\n%s", diff)
			}
		})
	}
}
