package compare

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchwright/benchwright/internal/results"
)

// A campaign's own dimensions: the names its baselines use.
const (
	DimPool      = "pool"
	DimTuning    = "tuning"
	DimBenchmark = "benchmark"
)

// Dimension is a way the runs of a report differ: a campaign's pools,
// tunings or benchmarks, or a run label whose value varies between runs
// (machine_type, placement, x-NAME...).
type Dimension struct {
	// Name is DimPool, DimTuning or DimBenchmark for a campaign's, else the
	// label's key.
	Name string
	// Values are its values in order: as the campaign lists them; else
	// (a label, or a campaign without its list) as the runs first have
	// them, or by number when every one is a number. noValue stands for
	// runs without it.
	Values []string
	// Baseline is the value the others are divided by: the one Options
	// name, else the first.
	Baseline string
	// Declared says the campaign lists it (even with one value).
	Declared bool
}

// Campaign is what a report knows of the campaign its runs are cells of.
type Campaign struct {
	// Dimensions are its pools, tunings and benchmarks (Name and Values, as
	// the campaign lists them).
	Dimensions []Dimension
	// Places are where each benchmark (by its object's name) is in them:
	// {"pool": "c2", "tuning": "none", "benchmark": "1pd"}.
	Places map[string]map[string]string
}

// varies says whether the dimension has something to compare.
func (d Dimension) varies() bool { return len(d.Values) > 1 }

// dimensionLabels are the run labels that may be dimensions, in the order
// they are tried: a label the ones before determine is left out (a pool's
// machine type, SMT with threads per core), so that runs that differ in one
// setting are compared once, along the first label that names it.
func dimensionLabels(runs []Run) []string {
	keys := append([]string{results.LabelMachineType}, runLabels...)
	var axes []string
	for _, r := range runs {
		for k := range r.Labels {
			if strings.HasPrefix(k, results.LabelAxisPrefix) && !slices.Contains(axes, k) {
				axes = append(axes, k)
			}
		}
		for k := range r.Axes {
			if strings.HasPrefix(k, results.LabelAxisPrefix) && !slices.Contains(axes, k) {
				axes = append(axes, k)
			}
		}
	}
	sort.Strings(axes)
	return append(keys, axes...)
}

// labelValue is a run's value of a label dimension, noValue without one.
func labelValue(r Run, key string) string {
	if key == results.LabelMachineType {
		return orValue(r.MachineType)
	}
	if v, ok := r.Labels[key]; ok && v != "" {
		return v
	}
	if x, ok := r.Axes[key]; ok {
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	return noValue
}

// DimensionsOf are the ways runs differ, and each run's value of each
// (values[run][dimension]): the campaign's dimensions first, in its order,
// then every label that varies and that the dimensions before do not
// determine. A run the campaign does not place has noValue in its
// dimensions.
func DimensionsOf(runs []Run, c *Campaign) ([]Dimension, [][]string) {
	values := make([][]string, len(runs))
	var dims []Dimension
	if c != nil {
		for _, d := range c.Dimensions {
			col := make([]string, len(runs))
			for i, r := range runs {
				col[i] = orValue(c.Places[r.Benchmark][d.Name])
				values[i] = append(values[i], col[i])
			}
			listed := slices.Clone(d.Values)
			for _, v := range orderedValues(col) { // values the campaign does not list: after
				if !slices.Contains(listed, v) {
					listed = append(listed, v)
				}
			}
			dims = append(dims, Dimension{Name: d.Name, Values: listed, Declared: true})
		}
	}
	for _, key := range dimensionLabels(runs) {
		if slices.ContainsFunc(dims, func(d Dimension) bool { return d.Name == key }) {
			continue // a campaign's pool or tuning: its label is the object's name
		}
		col := make([]string, len(runs))
		for i, r := range runs {
			col[i] = labelValue(r, key)
		}
		if !splits(values, col) {
			continue
		}
		dims = append(dims, Dimension{Name: key, Values: orderedValues(col)})
		for i := range values {
			values[i] = append(values[i], col[i])
		}
	}
	return dims, values
}

// splits says whether col tells apart two runs that have the same values of
// the dimensions so far (values), which is also whether it varies at all
// when there are none.
func splits(values [][]string, col []string) bool {
	seen := map[string]string{}
	for i, v := range col {
		key := strings.Join(values[i], "\x00")
		if was, ok := seen[key]; ok && was != v {
			return true
		}
		seen[key] = v
	}
	return false
}

// orderedValues are a label's distinct values: by number when every one
// (noValue aside, which comes first) is a number, else as first seen.
func orderedValues(col []string) []string {
	var out []string
	numeric := true
	for _, v := range col {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
		if _, err := strconv.ParseFloat(v, 64); err != nil && v != noValue {
			numeric = false
		}
	}
	if numeric {
		slices.SortStableFunc(out, func(a, b string) int {
			switch {
			case a == b:
				return 0
			case a == noValue:
				return -1
			case b == noValue:
				return 1
			}
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			return cmp.Compare(x, y)
		})
	}
	return out
}

// WithBaselines sets each dimension's baseline: the value baselines name,
// else its first. A baseline that names no dimension, or no value of its
// dimension, is an error that says which exist.
func WithBaselines(dims []Dimension, baselines map[string]string) ([]Dimension, error) {
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(baselines)) {
		i := slices.IndexFunc(dims, func(d Dimension) bool { return d.Name == name })
		switch {
		case i < 0:
			errs = append(errs, fmt.Sprintf("baseline %s=%s: the runs have no dimension %s (they have: %s)", name, baselines[name], name, dimNames(dims)))
		case !slices.Contains(dims[i].Values, baselines[name]):
			errs = append(errs, fmt.Sprintf("baseline %s=%s: %s is none of %s's values (%s)", name, baselines[name], baselines[name], name, strings.Join(dims[i].Values, ", ")))
		}
	}
	for i := range dims {
		dims[i].Baseline = dims[i].Values[0]
		if v, ok := baselines[dims[i].Name]; ok && slices.Contains(dims[i].Values, v) {
			dims[i].Baseline = v
		}
	}
	if len(errs) > 0 {
		return dims, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return dims, nil
}

// dimNames lists the dimensions' names, "none" without any.
func dimNames(dims []Dimension) string {
	if len(dims) == 0 {
		return "none"
	}
	names := make([]string, len(dims))
	for i, d := range dims {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}
