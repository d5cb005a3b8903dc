package campaign

import (
	"fmt"
	"slices"
	"strings"
)

// A campaign's benchmark expects a ratio to another cell with two keys of
// its own in an expectation, which the campaign resolves and removes before
// it creates the benchmark:
//
//	{"test": "randread-4k", "metric": "read_iops", "for": {"pool": "c3"},
//	 "relative": {"cell": {"pool": "c2"}, "atLeast": 2.6}}
//
// relative.cell names the baseline's cell by dimension (pool, tuning,
// benchmark); what it leaves out is the benchmark's own cell's. It becomes
// relative.baseline, the benchmark of that cell. "for" keeps the
// expectation in the cells it matches only (every cell without it). A cell
// is never its own baseline: there the expectation is left out.

// cellRef is a place in the campaign's dimensions: dimension -> value.
type cellRef map[string]string

// checkExpectations checks the campaign keys of the benchmarks'
// expectations: dimensions and values the matrix has, and a baseline cell
// of the same kind.
func (m *Matrix) checkExpectations() error {
	names, values := m.Dimensions()
	for i, b := range m.Benchmarks {
		exps, _ := b.Spec["expectations"].([]any)
		for j, x := range exps {
			at := fmt.Sprintf("parameter benchmarks[%d] (%q): expectations[%d]", i, b.Name, j)
			e, _ := x.(map[string]any)
			for _, key := range []string{"for", "relative.cell"} {
				ref, present, err := refAt(e, key)
				if err != nil {
					return fmt.Errorf("%s.%s: %w", at, key, err)
				}
				if !present {
					continue
				}
				for dim, v := range ref {
					if !slices.Contains(names, dim) {
						return fmt.Errorf("%s.%s: %q is no dimension: use %s", at, key, dim, strings.Join(names, ", "))
					}
					if !slices.Contains(values[dim], v) {
						return fmt.Errorf("%s.%s: %s %q is none of the campaign's: %s", at, key, dim, v, strings.Join(values[dim], ", "))
					}
				}
				if key == "relative.cell" {
					if base := ref[DimBenchmark]; base != "" && m.Benchmarks[index(m.Benchmarks, Entry{Name: base})].Kind != b.Kind {
						return fmt.Errorf("%s.relative.cell: benchmark %q is a %s, this one a %s: a baseline is of the same kind",
							at, base, m.Benchmarks[index(m.Benchmarks, Entry{Name: base})].Kind, b.Kind)
					}
					if rel, _ := e["relative"].(map[string]any); rel["baseline"] != nil {
						return fmt.Errorf("%s.relative: give cell or baseline, not both", at)
					}
				}
			}
		}
	}
	return nil
}

// refAt reads a cellRef at key ("for" or "relative.cell") of an
// expectation.
func refAt(e map[string]any, key string) (cellRef, bool, error) {
	parent := e
	name := key
	if k, ok := strings.CutPrefix(key, "relative."); ok {
		parent, _ = e["relative"].(map[string]any)
		name = k
	}
	raw, present := parent[name]
	if !present {
		return nil, false, nil
	}
	obj, ok := raw.(map[string]any)
	if !ok || len(obj) == 0 {
		return nil, true, fmt.Errorf(`give an object of dimension values, e.g. {"pool": "c2"}`)
	}
	ref := cellRef{}
	for k, v := range obj {
		s, ok := v.(string)
		if !ok {
			return nil, true, fmt.Errorf("%s: give the value's name as a string", k)
		}
		ref[k] = s
	}
	return ref, true, nil
}

// resolveExpectations turns the campaign keys of the expectations of b's
// spec in cell c into the benchmark's own: relative.cell into
// relative.baseline, and "for" into keeping the expectation or not.
// Parse has checked them.
func (m *Matrix) resolveExpectations(wf Workflow, c Cell, b Entry, spec map[string]any) {
	exps, ok := spec["expectations"].([]any)
	if !ok {
		return
	}
	here := cellRef{DimPool: c.Pool.Name, DimTuning: c.Tuning.Name, DimBenchmark: b.Name}
	var kept []any
	for _, x := range exps {
		e, _ := x.(map[string]any)
		if e == nil {
			kept = append(kept, x)
			continue
		}
		only, _, _ := refAt(e, "for")
		delete(e, "for")
		if !here.matches(only) {
			continue
		}
		if ref, present, _ := refAt(e, "relative.cell"); present {
			base := cellRef{}
			for k, v := range here {
				base[k] = v
			}
			for k, v := range ref {
				base[k] = v
			}
			if base.matches(here) {
				continue // the cell itself: nothing to compare
			}
			rel := e["relative"].(map[string]any)
			delete(rel, "cell")
			rel["baseline"] = BenchmarkName(wf, Cell{Pool: Entry{Name: base[DimPool]}, Tuning: Entry{Name: base[DimTuning]}}, Entry{Name: base[DimBenchmark]})
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		delete(spec, "expectations")
		return
	}
	spec["expectations"] = kept
}

// matches tells whether r has every value of want.
func (r cellRef) matches(want cellRef) bool {
	for k, v := range want {
		if r[k] != v {
			return false
		}
	}
	return true
}
