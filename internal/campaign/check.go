package campaign

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Check is a campaign's first step: every object its cells would create is
// named within bounds and passes a server-side dry run, so a bad parameter
// fails the campaign before any pool exists, in the API server's own words.
// Each pool and tuning is tried once (in its first cell): a spec is the
// same in every cell but for its pool's and tuning's names. A benchmark is
// tried in every cell, as its expectations may differ by cell.
func Check(ctx context.Context, c client.Client, m *Matrix, wf Workflow) error {
	var errs []error
	for _, cell := range m.Cells() {
		pool := m.PoolName(wf, cell)
		if e := validation.IsDNS1123Label(pool); len(e) > 0 {
			errs = append(errs, fmt.Errorf("cell %s: pool name %s (<workflow>-<pool>[-<tuning>]): %v: shorten the Workflow's or the entries' names", cell, pool, e))
		}
		for _, b := range m.Benchmarks {
			name := BenchmarkName(wf, cell, b)
			if e := validation.IsDNS1123Label(name); len(e) > 0 {
				errs = append(errs, fmt.Errorf("cell %s: benchmark name %s (<workflow>-<pool>-<tuning>-<benchmark>): %v: shorten the Workflow's or the entries' names", cell, name, e))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	cells := m.Cells()
	tried := map[string]bool{}
	try := func(param string, i int, e Entry, o *unstructured.Unstructured) {
		key := fmt.Sprintf("%s[%d]", param, i)
		if tried[key] {
			return
		}
		tried[key] = true
		err := c.Create(ctx, o, client.DryRunAll, client.FieldValidation("Strict"))
		if err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("parameter %s (%q): %w", key, e.Name, err))
		}
	}
	for _, cell := range cells {
		try("pools", index(m.Pools, cell.Pool), cell.Pool, m.PoolObject(wf, cell))
		if cell.Tuned() {
			try("tunings", index(m.Tunings, cell.Tuning), cell.Tuning, m.TuningObject(wf, cell))
		}
	}
	// A benchmark in every cell: its expectations differ by cell ("for",
	// and none against the cell itself). The same refusal is said once.
	said := map[string]bool{}
	for i, b := range m.Benchmarks {
		for _, cell := range cells {
			err := c.Create(ctx, m.BenchmarkObject(wf, cell, b), client.DryRunAll, client.FieldValidation("Strict"))
			if err != nil && !apierrors.IsAlreadyExists(err) && !said[err.Error()] {
				said[err.Error()] = true
				errs = append(errs, fmt.Errorf("parameter benchmarks[%d] (%q), in cell %s: %w", i, b.Name, cell, err))
			}
		}
	}
	return errors.Join(errs...)
}

func index(es []Entry, e Entry) int {
	for i := range es {
		if es[i].Name == e.Name {
			return i
		}
	}
	return -1
}
