package compare

import (
	"slices"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
)

// A fact the first, untuned step could not read (the firewall's rules are
// counted by the tuner) is shown but is no change of the next step: seed 003's
// ladder on the real cluster said "firewall rules unknown → 75".
func TestLadderLeavesUnreadFactsOutOfTheChanges(t *testing.T) {
	run := func(name, tuning, firewall string) Run {
		return Run{Name: name, Labels: map[string]string{results.LabelTuning: tuning, results.LabelFirewallRules: firewall}}
	}
	facts, steps := LadderOf([]Run{
		run("none", "none", results.FirewallUnknown),
		run("tcp", "tcp", "75"),
		run("firewall-off", "tcp", "0"),
	})
	if len(facts) != 2 || len(steps) != 3 {
		t.Fatalf("%d facts, %d steps, want 2 and 3", len(facts), len(steps))
	}
	want := [][]string{nil, {"tuning none → tcp"}, {"firewall rules 75 → 0"}}
	for i, s := range steps {
		if !slices.Equal(s.Changes, want[i]) {
			t.Errorf("step %d changed %q, want %q", i+1, s.Changes, want[i])
		}
	}
	if steps[1].Values[1] != "75" || steps[0].Values[1] != results.FirewallUnknown {
		t.Errorf("the firewall column reads %q, %q: both values must still show", steps[0].Values[1], steps[1].Values[1])
	}
	if steps[1].Changed[1] {
		t.Error("unknown → 75 is marked as a change")
	}
}
