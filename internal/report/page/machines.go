package page

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
)

// sharedMachinesNote says which pools ran on one machine, a sentence per
// machine that several shared: their differences cannot be their machine
// types'. Empty when none shared one or the machines are unknown.
func sharedMachinesNote(shared []compare.SharedMachine) string {
	sentences := make([]string, len(shared))
	for i, s := range shared {
		names := make([]string, len(s.Pools))
		var types []string
		for j, p := range s.Pools {
			names[j] = poolName(p)
			if p.MachineType != "" && !slices.Contains(types, p.MachineType) {
				types = append(types, p.MachineType)
			}
		}
		switch {
		case s.All && len(names) == 2:
			sentences[i] = fmt.Sprintf("Both pools (%s)", strings.Join(names, ", "))
		case s.All:
			sentences[i] = fmt.Sprintf("All %d pools (%s)", len(names), strings.Join(names, ", "))
		default:
			sentences[i] = "Pools " + joinAnd(names)
		}
		sentences[i] += " ran on one machine (" + s.Name + ")"
		if len(types) > 1 {
			sentences[i] += ": their differences here are not their machine types'"
		}
		sentences[i] += "."
	}
	return strings.Join(sentences, " ")
}

// poolName names a pool, with its machine type when the name does not say it.
func poolName(p compare.Pool) string {
	if p.MachineType == "" || strings.Contains(p.Name, p.MachineType) {
		return p.Name
	}
	return p.Name + " on " + p.MachineType
}
