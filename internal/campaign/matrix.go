// Package campaign runs the cells of a campaign: the matrix of pools x
// tunings x benchmarks that an Argo Workflow of the chart's WorkflowTemplate
// gives as JSON parameters. A cell is a pool and a tuning: its BenchmarkPool
// (and TuningProfile) made Ready, every benchmark run on it, then released.
// The Workflow's steps run `benchwright campaign check|cell|release`, which
// call this package.
package campaign

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Entry is an item of a matrix parameter: a pool, a tuning or a benchmark.
type Entry struct {
	// Name is a short key (lower-case letters, digits, '-'): object names
	// are <workflow>-<pool>-<tuning>[-<benchmark>].
	Name string `json:"name"`
	// Kind is a benchmark's kind.
	Kind string `json:"kind,omitempty"`
	// Labels are a benchmark's own labels (benchwright.io/x-NAME, ...).
	Labels map[string]string `json:"labels,omitempty"`
	// Spec is the object's spec; the campaign fills pool and tuning in.
	Spec map[string]any `json:"spec,omitempty"`
}

// Matrix is a campaign's parameters, parsed.
type Matrix struct {
	Pools        []Entry
	PoolDefaults map[string]any
	Tunings      []Entry
	Benchmarks   []Entry
	// SharePool runs a pool's tunings one after another on one pool (fewer
	// nodes) instead of each on a pool of its own, at once.
	SharePool bool
	// Baselines are the report's baseline per dimension: {"pool": "c2"}
	// (see Dimensions); a dimension without one is divided by its first
	// entry.
	Baselines map[string]string
	// Lead are the dimensions the baselines parameter names, in its order:
	// the report leads with their comparisons (the campaign's answer).
	Lead []string
}

// Params are the Workflow's parameters as given: JSON text.
type Params struct {
	Pools, PoolDefaults, Tunings, Benchmarks, SharePool, Baselines string
}

// UntunedName is the tuning that runs a cell's benchmarks untuned.
const UntunedName = "none"

// Kinds are the benchmark kinds a campaign runs.
var Kinds = []string{"StorageBenchmark", "MPIBenchmark", "NetworkBenchmark"}

var entryName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// Parse reads the parameters, and says which one is wrong, and where.
func Parse(p Params) (*Matrix, error) {
	m := &Matrix{}
	if err := parseList("pools", p.Pools, &m.Pools, false); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.PoolDefaults) != "" {
		if err := strictJSON("poolDefaults", p.PoolDefaults, &m.PoolDefaults); err != nil {
			return nil, err
		}
		if m.PoolDefaults == nil {
			return nil, fmt.Errorf(`parameter poolDefaults is null: give an object, e.g. {"provider": "gke"}, or {}`)
		}
	}
	tunings := p.Tunings
	if strings.TrimSpace(tunings) == "" {
		tunings = `[{"name": "none"}]`
	}
	if err := parseList("tunings", tunings, &m.Tunings, false); err != nil {
		return nil, err
	}
	if err := parseList("benchmarks", p.Benchmarks, &m.Benchmarks, true); err != nil {
		return nil, err
	}
	switch strings.TrimSpace(p.SharePool) {
	case "", "false":
	case "true":
		m.SharePool = true
	default:
		return nil, fmt.Errorf("parameter sharePool is %q: give true or false", p.SharePool)
	}
	if err := m.parseBaselines(p.Baselines); err != nil {
		return nil, err
	}
	if err := m.checkExpectations(); err != nil {
		return nil, err
	}
	return m, nil
}

// parseList reads a list parameter, each item with a unique short name (and
// a known kind, for benchmarks).
func parseList(param, text string, into *[]Entry, benchmarks bool) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf(`parameter %s is empty: give a JSON list, e.g. [{"name": "a", ...}]`, param)
	}
	if err := strictJSON(param, text, into); err != nil {
		return err
	}
	if *into == nil {
		return fmt.Errorf(`parameter %s is null: give a JSON list, e.g. [{"name": "a", ...}]`, param)
	}
	if len(*into) == 0 {
		return fmt.Errorf("parameter %s is an empty list: a campaign needs at least one", param)
	}
	seen := map[string]int{}
	for i, e := range *into {
		at := fmt.Sprintf("parameter %s[%d]", param, i)
		if !entryName.MatchString(e.Name) || len(e.Name) > 40 {
			return fmt.Errorf("%s: name %q: want lower-case letters, digits and '-', starting and ending with a letter or digit, at most 40 characters", at, e.Name)
		}
		if j, dup := seen[e.Name]; dup {
			return fmt.Errorf("%s: name %q is also %s[%d]'s: names are unique", at, e.Name, param, j)
		}
		seen[e.Name] = i
		switch {
		case benchmarks && e.Kind == "":
			return fmt.Errorf("%s (%q): no kind: give one of %s", at, e.Name, strings.Join(Kinds, ", "))
		case benchmarks && !slices.Contains(Kinds, e.Kind):
			return fmt.Errorf("%s (%q): kind %q is not one of %s", at, e.Name, e.Kind, strings.Join(Kinds, ", "))
		case !benchmarks && e.Kind != "":
			return fmt.Errorf("%s (%q): a %s item has no kind (%q)", at, e.Name, param, e.Kind)
		case !benchmarks && len(e.Labels) > 0:
			return fmt.Errorf("%s (%q): only benchmarks have labels", at, e.Name)
		}
		if param == "tunings" && e.Name == UntunedName && len(e.Spec) > 0 {
			return fmt.Errorf("%s: tuning %q runs untuned and has no spec", at, UntunedName)
		}
	}
	return nil
}

// strictJSON decodes text into v, refusing unknown fields and trailing data.
func strictJSON(param, text string, v any) error {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("parameter %s is not valid JSON of its form: %w", param, err)
	}
	if dec.More() {
		return fmt.Errorf("parameter %s has more after its JSON value", param)
	}
	return nil
}
