package page

import (
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/report/compare"
)

// machine is the facts of a machine other than sharedMachine.
func machine(id string) *nodefacts.Facts {
	return &nodefacts.Facts{MachineID: id, MachineIDSource: nodefacts.MachineFromDMI, BootID: "7a2b9c1d-0e3f"}
}

// Pools whose nodes were one machine: the report's head says so, naming
// the pools and the machine, in HTML and Markdown; not when they ran on
// machines of their own or their machines are unknown.
func TestSharedMachineInTheHead(t *testing.T) {
	other, third := machine("9e8d7c6b-5a49"), machine("1f2e3d4c-5b6a")
	for name, tc := range map[string]struct {
		facts [3]*nodefacts.Facts
		want  string // "": no sentence
	}{
		"all on one": {[3]*nodefacts.Facts{sharedMachine, sharedMachine, sharedMachine},
			"All 3 pools (c2-standard-60, c2d-standard-112, c3-highcpu-176) ran on one machine (machine 4c4c4544): their differences here are not their machine types'."},
		"two of three": {[3]*nodefacts.Facts{sharedMachine, other, sharedMachine},
			"Pools c2-standard-60 and c3-highcpu-176 ran on one machine (machine 4c4c4544): their differences here are not their machine types'."},
		"each its own":       {[3]*nodefacts.Facts{sharedMachine, other, third}, ""},
		"unknown":            {[3]*nodefacts.Facts{}, ""},
		"one known":          {[3]*nodefacts.Facts{sharedMachine, nil, nil}, ""},
		"ids that are not":   {[3]*nodefacts.Facts{machine("<b>x</b>"), machine("<b>x</b>"), machine("<b>x</b>")}, ""},
		"same id, two boots": {[3]*nodefacts.Facts{sharedMachine, {MachineID: sharedMachine.MachineID, MachineIDSource: nodefacts.MachineFromDMI, BootID: "00000000-0000"}, third}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			var cells []storedCell
			for i, pool := range []string{"c2-standard-60", "c2d-standard-112", "c3-highcpu-176"} {
				start := 60 * i // one at a time: sharing a machine is not overlapping
				cells = append(cells, storedCell{pool: pool, starts: [3]int{start, start + 20, start + 40}, facts: tc.facts[i]})
			}
			_, html, md, _ := besideReport(t, cells...)
			for out, text := range map[string]string{"html": unescaped(html), "md": md} {
				head, _, _ := strings.Cut(text, "Cells")
				if tc.want == "" && strings.Contains(head, "one machine") {
					t.Errorf("%s's head says pools shared a machine:\n%s", out, head)
				}
				if tc.want != "" && !strings.Contains(head, tc.want) {
					t.Errorf("%s's head lacks %q:\n%s", out, tc.want, head)
				}
			}
		})
	}
}

// Two pools are both; a pool's machine type follows its name where the name
// does not say it; pools of one machine type differ in something else.
func TestSharedMachinesNote(t *testing.T) {
	c2, c3 := compare.Pool{Name: "c2", MachineType: "c2-standard-60"}, compare.Pool{Name: "c3-highcpu-176", MachineType: "c3-highcpu-176"}
	compact := compare.Pool{Name: "compact", MachineType: "c2-standard-60"}
	for _, tc := range []struct {
		shared []compare.SharedMachine
		want   string
	}{
		{[]compare.SharedMachine{{Name: "machine 4c4c4544", Pools: []compare.Pool{c2, c3}, All: true}},
			"Both pools (c2 on c2-standard-60, c3-highcpu-176) ran on one machine (machine 4c4c4544): their differences here are not their machine types'."},
		{[]compare.SharedMachine{{Name: "machine 4c4c4544", Pools: []compare.Pool{c2, compact}}, {Name: "machine 9e8d7c6b", Pools: []compare.Pool{c2, c3}}},
			"Pools c2 on c2-standard-60 and compact on c2-standard-60 ran on one machine (machine 4c4c4544). " +
				"Pools c2 on c2-standard-60 and c3-highcpu-176 ran on one machine (machine 9e8d7c6b): their differences here are not their machine types'."},
		{nil, ""},
	} {
		if got := sharedMachinesNote(tc.shared); got != tc.want {
			t.Errorf("note\n%q, want\n%q", got, tc.want)
		}
	}
}
