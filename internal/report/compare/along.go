package compare

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/interference"
	"github.com/benchwright/benchwright/internal/results"
)

// Along is the runs compared along one dimension: in each group of runs
// that differ in it alone, each run's figures divided by those of the
// group's run of the dimension's baseline ("pool: c3 / c2, per benchmark
// and tuning").
type Along struct {
	Dimension Dimension
	// Others are the other dimensions' names, which the groups' keys give
	// values of.
	Others []string
	Groups []AlongGroup
	// Ladder marks a dimension whose every step changes a node setting the
	// runs record (placement, SMT, tuning...: seed 003): each step is also
	// divided by the step before.
	Ladder bool
}

// AlongGroup is the runs of one value of the other dimensions.
type AlongGroup struct {
	// Key are its values of the other dimensions (Along.Others).
	Key []string
	// Runs are its run of each value of the dimension (by
	// Dimension.Values), -1 where it has none.
	Runs []int
	// Missing says why the group has no run of the baseline value ("no c2
	// cell: failed"): its Rows' ratios are left out. Empty when it has one.
	Missing string
	// Absent say, by value, why a campaign's group has no run of it; empty
	// where it has one.
	Absent []string
	// Rows line up the group's figures by value of the dimension: Medians,
	// and the ratios to the baseline's (With's, indexed as Runs).
	Rows []Row
	// Beside are its runs' marks (Run.Beside), indexed as Runs.
	Beside []interference.Mark
	// Steps are, for a ladder, the same figures with each value divided by
	// the value before it that the group has (the first has none).
	Steps []Row
}

// AlongAll compares the runs along every dimension that varies; values are
// each run's values of dims (see DimensionsOf). A label's dimension keeps
// only the groups of at least two runs; a campaign's keeps every group, so
// that a failed cell shows where its ratios would be. Only the figures that
// two values of the dimension have somewhere are compared (sharedFigures):
// benchmarks that share no test are no comparison, failed cells or not. A
// group keeps only the figures that two of its runs have (see trim), and a
// dimension without any group left is left out: no table is empty.
func AlongAll(runs []Run, dims []Dimension, values [][]string, cells []Cell, opts Options) ([]Along, error) {
	var out []Along
	for d, dim := range dims {
		if !dim.varies() {
			continue
		}
		a := Along{Dimension: dim}
		var by []int // the other dimensions that vary: one value of the rest is no group
		for o, other := range dims {
			if o != d && other.varies() {
				a.Others, by = append(a.Others, other.Name), append(by, o)
			}
		}
		for _, g := range groupsAlong(dims, values, d, by) {
			if !dim.Declared && g.Count() < 2 {
				continue
			}
			g.Absent = make([]string, len(g.Runs))
			for v, ri := range g.Runs {
				if ri < 0 && dim.Declared {
					g.Absent[v] = missing(dim, dim.Values[v], a.Others, g.Key, cells)
				}
			}
			if g.Runs[slices.Index(dim.Values, dim.Baseline)] < 0 {
				g.Missing = missing(dim, dim.Baseline, a.Others, g.Key, cells)
			}
			if err := g.compare(runs, dim, opts); err != nil {
				return nil, err
			}
			g.Beside = besideOf(runs, g.Runs)
			a.Groups = append(a.Groups, g)
		}
		shared := sharedFigures(a.Groups)
		kept := a.Groups[:0]
		for _, g := range a.Groups {
			g.Rows = slices.DeleteFunc(g.Rows, func(r Row) bool { return !shared[rowKey(r)] })
			if g.trim(); len(g.Rows) > 0 {
				kept = append(kept, g)
			}
		}
		a.Groups = kept
		if len(a.Groups) == 0 {
			continue
		}
		a.Ladder = isLadder(runs, a)
		if a.Ladder {
			for i := range a.Groups {
				if err := a.Groups[i].steps(runs, opts); err != nil {
					return nil, err
				}
			}
		}
		a.decide()
		out = append(out, a)
	}
	return out, nil
}

// groupsAlong groups the runs by their values of the dimensions by, in the
// order of those values; a group's Runs are by dimension d's values.
func groupsAlong(dims []Dimension, values [][]string, d int, by []int) []AlongGroup {
	var groups []AlongGroup
	index := map[string]int{}
	for ri, vs := range values {
		key := make([]string, len(by))
		for i, o := range by {
			key[i] = vs[o]
		}
		k := strings.Join(key, "\x00")
		gi, ok := index[k]
		if !ok {
			gi = len(groups)
			index[k] = gi
			g := AlongGroup{Key: key, Runs: make([]int, len(dims[d].Values))}
			for i := range g.Runs {
				g.Runs[i] = -1
			}
			groups = append(groups, g)
		}
		if v := slices.Index(dims[d].Values, vs[d]); groups[gi].Runs[v] < 0 {
			groups[gi].Runs[v] = ri // a second run of a cell: the first stands
		}
	}
	rank := func(g AlongGroup) []int {
		out := make([]int, len(by))
		for i, o := range by {
			out[i] = slices.Index(dims[o].Values, g.Key[i])
		}
		return out
	}
	slices.SortStableFunc(groups, func(a, b AlongGroup) int { return slices.Compare(rank(a), rank(b)) })
	return groups
}

// aligned are the group's runs by value: an empty run (no figures) where
// it has none, and for the values keep refuses.
func (g *AlongGroup) aligned(runs []Run, keep func(v int) bool) []Run {
	out := make([]Run, len(g.Runs))
	for v, ri := range g.Runs {
		if ri >= 0 && keep(v) {
			out[v] = runs[ri]
		}
	}
	return out
}

// compare fills Rows: each value's run against the baseline's. Without a
// baseline run (Missing), the medians are still lined up, against the first
// run the group has, and the ratios left out.
func (g *AlongGroup) compare(runs []Run, dim Dimension, opts Options) error {
	base := slices.Index(dim.Values, dim.Baseline)
	if g.Missing != "" {
		base = slices.IndexFunc(g.Runs, func(ri int) bool { return ri >= 0 })
	}
	rows, err := With(g.aligned(runs, func(int) bool { return true }), base, opts)
	if err != nil {
		return err
	}
	if g.Missing != "" { // no ratios to a stand-in
		for i := range rows {
			blank := newRow(results.Summary{Metric: rows[i].Metric}, "", len(g.Runs), opts)
			rows[i].Speedups, rows[i].Verdicts, rows[i].Noisy = blank.Speedups, blank.Verdicts, blank.Noisy
		}
	}
	g.Rows = rows
	return nil
}

// steps fills Steps: each value's run divided by the one before it in the
// group, figure by figure as Rows.
func (g *AlongGroup) steps(runs []Run, opts Options) error {
	g.Steps = make([]Row, len(g.Rows))
	index := map[string]int{}
	for i, r := range g.Rows {
		index[rowKey(r)] = i
		s := newRow(results.Summary{Test: r.Test, Metric: r.Metric, Unit: r.Unit}, r.MsgSize, len(g.Runs), opts)
		s.Ratio, s.MaxCV, s.Medians, s.CVs = r.Ratio, r.MaxCV, r.Medians, r.CVs
		g.Steps[i] = s
	}
	prev := -1
	for v, ri := range g.Runs {
		if ri < 0 {
			continue
		}
		if prev >= 0 {
			pair, err := With(g.aligned(runs, func(w int) bool { return w == prev || w == v }), prev, opts)
			if err != nil {
				return err
			}
			for _, p := range pair {
				if i, ok := index[rowKey(p)]; ok {
					s := &g.Steps[i]
					s.Speedups[v], s.Verdicts[v], s.Noisy[v] = p.Speedups[v], p.Verdicts[v], p.Noisy[v]
				}
			}
		}
		prev = v
	}
	return nil
}

// rowKey identifies a row's figure across comparisons of the same runs.
func rowKey(r Row) string {
	return strings.Join([]string{r.Test, r.Metric, r.MsgSize, Quantity(r.Unit)}, "\x00")
}

// isLadder says whether every step of the dimension, in every group, changes
// a node setting the runs record: a tuning ladder, whose steps are worth
// dividing by the step before. It takes three values or more (with two, the
// step before is the baseline).
func isLadder(runs []Run, a Along) bool {
	if len(a.Dimension.Values) < 3 {
		return false
	}
	pairs := 0
	for _, g := range a.Groups {
		prev := -1
		for _, ri := range g.Runs {
			if ri < 0 {
				continue
			}
			if prev >= 0 {
				if !slices.ContainsFunc(ladderFacts, func(f LadderFact) bool {
					return orValue(runs[prev].Labels[f.label]) != orValue(runs[ri].Labels[f.label])
				}) {
					return false
				}
				pairs++
			}
			prev = ri
		}
	}
	return pairs > 0
}

// missing says why a group has no run of the dimension's value: the state
// of the campaign's cell that should have made it, when the dimension is
// the campaign's.
func missing(dim Dimension, value string, others, key []string, cells []Cell) string {
	place := map[string]string{dim.Name: value}
	for i, name := range others {
		place[name] = key[i]
	}
	if !dim.Declared {
		return "no run with " + dim.Name + "=" + value
	}
	for _, c := range cells {
		if !matches(c, place) {
			continue
		}
		if c.State == "Succeeded" { // its run has no figure here: another label's value (S2's scope)
			return "no " + value + " run with " + labelsOf(others, key)
		}
		return "no " + value + " cell: " + strings.ToLower(cmp.Or(c.State, "not created"))
	}
	return "no " + value + " cell"
}

// labelsOf are the groups' values of the dimensions that are not the
// campaign's: "scope=interNode".
func labelsOf(others, key []string) string {
	var out []string
	for i, name := range others {
		if name != DimPool && name != DimTuning && name != DimBenchmark {
			out = append(out, name+"="+key[i])
		}
	}
	return strings.Join(out, " ")
}

// matches says whether a cell is at place in the campaign's dimensions.
func matches(c Cell, place map[string]string) bool {
	for name, v := range map[string]string{DimPool: c.Pool, DimTuning: c.Tuning, DimBenchmark: c.Benchmark} {
		if want, ok := place[name]; ok && want != v {
			return false
		}
	}
	return true
}

// sharedFigures are the figures (rowKey) that two values of the dimension
// or more have, in any of its groups: only those compare anything. Two
// benchmarks that share no test (fio and iperf3) are no comparison, failed
// cells or not.
func sharedFigures(groups []AlongGroup) map[string]bool {
	values := map[string]map[int]bool{}
	for _, g := range groups {
		for _, r := range g.Rows {
			k := rowKey(r)
			for v, m := range r.Medians {
				if !math.IsNaN(m) {
					if values[k] == nil {
						values[k] = map[int]bool{}
					}
					values[k][v] = true
				}
			}
		}
	}
	out := map[string]bool{}
	for k, vs := range values {
		out[k] = len(vs) >= 2
	}
	return out
}

// trim leaves out the rows that compare nothing: a figure of one run alone
// (a test only one benchmark has), unless the group says why a run is not
// there.
func (g *AlongGroup) trim() {
	if g.Missing != "" || slices.ContainsFunc(g.Absent, func(s string) bool { return s != "" }) {
		return
	}
	g.Rows = slices.DeleteFunc(g.Rows, func(r Row) bool {
		n := 0
		for _, m := range r.Medians {
			if !math.IsNaN(m) {
				n++
			}
		}
		return n < 2
	})
}

// Count is how many runs the group has.
func (g AlongGroup) Count() int {
	n := 0
	for _, ri := range g.Runs {
		if ri >= 0 {
			n++
		}
	}
	return n
}

// Rows are every group's rows, for how they divide.
func (a Along) Rows() []Row {
	var out []Row
	for _, g := range a.Groups {
		out = append(out, g.Rows...)
	}
	return out
}

// decide decides every comparison of a, its groups' rows and steps,
// together: it is printed as one table.
func (a Along) decide() {
	var tables [][]Row
	for _, g := range a.Groups {
		tables = append(tables, g.Rows, g.Steps)
	}
	decideTable(tables...)
}
