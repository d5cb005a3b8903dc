package report

import (
	"fmt"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// ladderFact is a node setting a tuning ladder changes from step to step
// (seed 003: placement, SMT, TCP tuning, firewall, mitigations, SELinux),
// as the samples' labels record it.
type ladderFact struct {
	label, name string
}

// ladderFacts are the facts the ladder table shows, in the seed's order.
var ladderFacts = []ladderFact{
	{results.LabelPlacement, "placement"},
	{results.LabelThreadsPerCore, "threads/core"},
	{results.LabelSMT, "SMT active"},
	{results.LabelTuning, "tuning"},
	{results.LabelFirewallRules, "firewall rules"},
	{results.LabelMitigations, "mitigations"},
	{results.LabelSELinux, "SELinux"},
	{results.LabelMTU, "MTU"},
}

// noValue is a fact a run does not record (or whose samples disagree on).
const noValue = "—"

// ladderStep is one run of a ladder: its facts and what changed from the
// run before.
type ladderStep struct {
	run     string   // its label
	name    string   // its name, for captions
	values  []string // by the ladder's facts
	changed []bool
	changes []string // "placement — -> COMPACT"
}

// ladderOf is a tuning ladder's steps: the runs in order with the facts any
// of them records, when at least one fact differs between runs; nil
// otherwise (one run, or runs on the same settings).
func ladderOf(runs []Run) ([]ladderFact, []ladderStep) {
	if len(runs) < 2 {
		return nil, nil
	}
	var facts []ladderFact
	for _, f := range ladderFacts {
		for _, r := range runs {
			if r.Labels[f.label] != "" {
				facts = append(facts, f)
				break
			}
		}
	}
	steps := make([]ladderStep, len(runs))
	changed := false
	for i, r := range runs {
		s := ladderStep{run: r.Label(), name: r.Name, values: make([]string, len(facts)), changed: make([]bool, len(facts))}
		for j, f := range facts {
			s.values[j] = orValue(r.Labels[f.label])
			if i == 0 {
				continue
			}
			if before := orValue(runs[i-1].Labels[f.label]); before != s.values[j] && !unread(before) && !unread(s.values[j]) {
				s.changed[j], changed = true, true
				s.changes = append(s.changes, fmt.Sprintf("%s %s → %s", f.name, before, s.values[j]))
			}
		}
		steps[i] = s
	}
	if !changed {
		return nil, nil
	}
	return facts, steps
}

// unread is a fact the node could not report (the firewall's rules are
// counted only where the privileged tuner ran, so an untuned first step has
// none): a value beside it is no change the step made.
func unread(v string) bool {
	return v == results.FirewallUnknown
}

func orValue(v string) string {
	if v == "" {
		return noValue
	}
	return v
}

// ladderGrid is the ladder as a table: a row per step, a column per fact,
// and what the step changed.
func ladderGrid(facts []ladderFact, steps []ladderStep) *grid {
	g := &grid{header: []string{"step", "run"}, right: []bool{true, false}}
	for _, f := range facts {
		g.header, g.right = append(g.header, f.name), append(g.right, false)
	}
	g.header, g.right = append(g.header, "changed from the step before"), append(g.right, false)
	for i, s := range steps {
		changes := strings.Join(s.changes, "; ")
		if i == 0 {
			changes = "(first step)"
		} else if changes == "" {
			changes = "nothing recorded"
		}
		g.add(append(append([]string{fmt.Sprint(i + 1), s.run}, s.values...), changes)...)
	}
	return g
}

// ladderCaption says what each step changed, for the ladder's bar charts.
func ladderCaption(steps []ladderStep) string {
	var parts []string
	for _, s := range steps[1:] {
		if len(s.changes) > 0 {
			parts = append(parts, s.name+": "+strings.Join(s.changes, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " What each step changed (see the ladder table): " + strings.Join(parts, "; ") + "."
}
