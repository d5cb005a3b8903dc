package figure

import (
	"cmp"
	"slices"
	"strconv"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// PooledBoxes are seed 002's figures a-i: per scope of a sized
// NetworkBenchmark figure (intra-socket, inter-socket, inter-node), the
// spread at each message size of each chiplet pair ("chiplet 0 -> 2"),
// pooled over the nodes that ran it, as the seed averages its 5 nodes.
// None when the figure's runs are not pairs with a scope and chiplets.
func PooledBoxes(f *compare.Figure, runs []compare.Run) []Plot {
	type series struct {
		name string
		key  [2]int // the chiplets, as numbers
		runs []int
	}
	var scopes []string
	byScope := map[string][]*series{}
	for _, ri := range f.Runs {
		l := runs[ri].Labels
		scope, sc, cc := l[netbench.LabelScope], l[netbench.LabelServerChiplet], l[netbench.LabelClientChiplet]
		if runs[ri].Pair == "" || scope == "" || sc == "" || cc == "" {
			return nil
		}
		if _, ok := byScope[scope]; !ok {
			scopes = append(scopes, scope)
		}
		name := "chiplet " + sc + " -> " + cc
		var s *series
		for _, have := range byScope[scope] {
			if have.name == name {
				s = have
			}
		}
		if s == nil {
			s = &series{name: name, key: [2]int{atoiOr(sc, -1), atoiOr(cc, -1)}}
			byScope[scope] = append(byScope[scope], s)
		}
		s.runs = append(s.runs, ri)
	}
	// Nearest first (the seed's figures a, b, c), each scope's pairs by
	// chiplet.
	rank := map[string]int{netbench.ScopeIntraChiplet: 0, string(benchv1.ScopeIntraSocket): 1, string(benchv1.ScopeInterSocket): 2, string(benchv1.ScopeInterNode): 3}
	slices.SortStableFunc(scopes, func(a, b string) int { return rankOf(rank, a) - rankOf(rank, b) })
	for _, list := range byScope {
		slices.SortStableFunc(list, func(a, b *series) int { return cmp.Compare(a.key[0], b.key[0])*2 + cmp.Compare(a.key[1], b.key[1]) })
	}
	sizes := SizeCategories(f)
	var out []Plot
	for _, scope := range scopes {
		c := newCategories(f.Metric, f.Unit, "")
		c.Names, c.index = sizes.Names, sizes.index
		pooled := make([]compare.Run, len(byScope[scope]))
		for k, s := range byScope[scope] {
			pooled[k] = compare.Run{Name: s.name}
			for ci := range sizes.Names {
				var vals []float64
				for _, ri := range s.runs {
					if pt, ok := sizes.at(ri, ci); ok {
						vals = append(vals, pt.Vals...)
					}
				}
				if len(vals) > 0 {
					c.set(sizes.Names[ci], k, compare.Point{Stats: results.Compute(vals), Vals: vals}, f.Unit)
				}
			}
		}
		if c.MaxN < MinBoxRepetitions {
			continue
		}
		p, ok := Boxes(c, pooled, f.Test+": "+f.Metric+", "+scope+", pooled over nodes", "message size (bytes)")
		if ok {
			p.Caption += " Each chiplet pair's repetitions on every node that ran it are pooled (seed 002 averages its 5 nodes)."
			out = append(out, p)
		}
	}
	return out
}

// rankOf is a scope's place, unknown scopes last.
func rankOf(rank map[string]int, scope string) int {
	if r, ok := rank[scope]; ok {
		return r
	}
	return len(rank)
}

// atoiOr is s as a number, or or when it is none.
func atoiOr(s string, or int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return or
}
