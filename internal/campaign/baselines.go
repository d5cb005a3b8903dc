package campaign

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The dimensions of a campaign's report that baselines name: its pools,
// tunings and benchmarks. (A benchmark's labels follow its entry: no
// dimension of their own.)
const (
	DimPool      = "pool"
	DimTuning    = "tuning"
	DimBenchmark = "benchmark"
)

// Dimensions are the matrix's dimensions, each with its entries' names in
// the order the parameters list them.
func (m *Matrix) Dimensions() (names []string, values map[string][]string) {
	return []string{DimPool, DimTuning, DimBenchmark},
		map[string][]string{DimPool: entryNames(m.Pools), DimTuning: entryNames(m.Tunings), DimBenchmark: entryNames(m.Benchmarks)}
}

// parseBaselines reads the baselines parameter: a JSON object of a
// dimension's name to one of its values, each checked against the matrix.
func (m *Matrix) parseBaselines(text string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if err := strictJSON("baselines", text, &m.Baselines); err != nil {
		return fmt.Errorf(`%w: give an object of a dimension to its baseline, e.g. {"pool": "c2"}`, err)
	}
	if m.Baselines == nil {
		return fmt.Errorf(`parameter baselines is null: give an object, e.g. {"pool": "c2"}, or {}`)
	}
	m.Lead = objectKeys(text)
	names, values := m.Dimensions()
	for _, dim := range slices.Sorted(maps.Keys(m.Baselines)) {
		v := m.Baselines[dim]
		switch {
		case !slices.Contains(names, dim):
			return fmt.Errorf("parameter baselines: %q is no dimension of the campaign: give one of %s", dim, strings.Join(names, ", "))
		case !slices.Contains(values[dim], v):
			return fmt.Errorf("parameter baselines: %s %q is none of the campaign's: give one of %s", dim, v, strings.Join(values[dim], ", "))
		}
	}
	return nil
}

// objectKeys are the keys of the JSON object text (already decoded once),
// in the order written.
func objectKeys(text string) []string {
	dec := json.NewDecoder(strings.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		if k, ok := t.(string); ok {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

func entryNames(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}
