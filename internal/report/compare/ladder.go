package compare

import (
	"fmt"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// LadderFact is a node setting a tuning ladder changes from step to step
// (seed 003: placement, SMT, TCP tuning, firewall, mitigations, SELinux),
// as the samples' labels record it.
type LadderFact struct {
	label, Name string
}

// ladderFacts are the facts the ladder table shows, in the seed's order.
var ladderFacts = []LadderFact{
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

// LadderStep is one run of a ladder: its facts and what changed from the
// run before.
type LadderStep struct {
	Run     string   // its label
	Name    string   // its name, for captions
	Values  []string // by the ladder's facts
	Changed []bool
	Changes []string // "placement — -> COMPACT"
}

// LadderOf is a tuning ladder's steps: the runs in order with the facts any
// of them records, when they are one sequence within one pool and at least
// one fact differs between runs; nil otherwise (one run, runs on the same
// settings, or a matrix: see oneSequence).
func LadderOf(runs []Run) ([]LadderFact, []LadderStep) {
	if len(runs) < 2 || !oneSequence(runs) {
		return nil, nil
	}
	var facts []LadderFact
	for _, f := range ladderFacts {
		for _, r := range runs {
			if r.Labels[f.label] != "" {
				facts = append(facts, f)
				break
			}
		}
	}
	steps := make([]LadderStep, len(runs))
	changed := false
	for i, r := range runs {
		s := LadderStep{Run: r.Label(), Name: r.Name, Values: make([]string, len(facts)), Changed: make([]bool, len(facts))}
		for j, f := range facts {
			s.Values[j] = orValue(r.Labels[f.label])
			if i == 0 {
				continue
			}
			if before := orValue(runs[i-1].Labels[f.label]); before != s.Values[j] && !unread(before) && !unread(s.Values[j]) {
				s.Changed[j], changed = true, true
				s.Changes = append(s.Changes, fmt.Sprintf("%s %s → %s", f.Name, before, s.Values[j]))
			}
		}
		steps[i] = s
	}
	if !changed {
		return nil, nil
	}
	return facts, steps
}

// oneSequence says whether runs are steps of one ladder: all on one machine
// type, and in a campaign all of one pool and one benchmark. Runs across
// pools or benchmarks are a matrix, whose neighbours in order differ in
// more than a step (c2/tcp -> c3/none).
func oneSequence(runs []Run) bool {
	for _, r := range runs[1:] {
		if r.MachineType != runs[0].MachineType || r.Place[DimPool] != runs[0].Place[DimPool] ||
			r.Place[DimBenchmark] != runs[0].Place[DimBenchmark] {
			return false
		}
	}
	return true
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

// LadderCaption says what each step changed, for the ladder's bar charts.
func LadderCaption(steps []LadderStep) string {
	var parts []string
	for _, s := range steps[1:] {
		if len(s.Changes) > 0 {
			parts = append(parts, s.Name+": "+strings.Join(s.Changes, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " What each step changed (see the ladder table): " + strings.Join(parts, "; ") + "."
}
