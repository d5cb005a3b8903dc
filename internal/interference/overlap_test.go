package interference

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/results"
)

func at(s int) time.Time { return time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC) }

// The campaign: four cells at once on two nodes of one machine
// (the real cluster's), then one cell alone on another machine.
func TestOverlaps(t *testing.T) {
	one := &nodefacts.Facts{MachineID: "4c4c4544-0042", MachineIDSource: nodefacts.MachineFromDMI, BootID: "0f3c6a7e-91b2"}
	other := &nodefacts.Facts{MachineID: "7d1c2a9e-0b3f", MachineIDSource: nodefacts.MachineFromDMI, BootID: "aa3c6a7e-91b2"}
	node := func(host string, f *nodefacts.Facts, ws ...results.Window) results.NodeInfo {
		return results.NodeInfo{Hostname: host, Facts: f, Windows: ws}
	}
	win := func(rep, start, end int) results.Window {
		return results.Window{Repetition: rep, Start: at(start), End: at(end)}
	}
	var ws []Window
	ws = append(ws, WindowsOf("e2-none", []results.NodeInfo{node("n1", one, win(0, 0, 10), win(1, 20, 30))})...)
	ws = append(ws, WindowsOf("n2d-none", []results.NodeInfo{node("n2", one, win(0, 5, 15), win(1, 30, 40))})...) // rep 1 only touches
	ws = append(ws, WindowsOf("n2d-rmem", []results.NodeInfo{node("n3", other, win(0, 5, 15))})...)               // another machine
	ws = append(ws, WindowsOf("old", []results.NodeInfo{node("n1", nil, win(0, 0, 40))})...)                      // machine unknown
	// One run on two nodes of one machine does not overlap itself.
	ws = append(ws, WindowsOf("mpi", []results.NodeInfo{node("n1", one, win(0, 100, 110)), node("n2", one, win(0, 100, 110))})...)

	got := Overlaps(ws)
	m := one.Machine()
	want := []Overlap{
		{Rep: Rep{"e2-none", 0}, Machine: m, With: []Rep{{"n2d-none", 0}}},
		{Rep: Rep{"n2d-none", 0}, Machine: m, With: []Rep{{"e2-none", 0}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Overlaps (-want +got):\n%s", d)
	}
	if n := len(WindowsOf("old", []results.NodeInfo{node("n1", nil, win(0, 0, 40))})); n != 0 {
		t.Errorf("a node of unknown machine gave %d windows", n)
	}
}
