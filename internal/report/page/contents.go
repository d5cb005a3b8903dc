package page

import (
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
)

// plotGroup is the plots of one test, as the contents list them: its name,
// the first plot's ID, how many.
type plotGroup struct {
	Name, ID string
	Count    int
}

// plotGroups are the plots grouped by test (a title's part before its
// first colon: "fi_msg_bw: bandwidth, interNode"), in the order they come,
// so that the contents list a line per test instead of one per plot.
func plotGroups(plots []figure.Plot) []plotGroup {
	var out []plotGroup
	for _, p := range plots {
		name, _, _ := strings.Cut(p.Title, ":")
		if i := slices.IndexFunc(out, func(g plotGroup) bool { return g.Name == name }); i >= 0 {
			out[i].Count++
			continue
		}
		out = append(out, plotGroup{Name: name, ID: p.ID, Count: 1})
	}
	return out
}

// plotsLead says whether the runs' plots are the report's answer, to come
// first: a campaign none of whose own dimensions compares anything (seed
// 002: one pool and tuning, its answer the box plots per test and scope).
func (r *Report) plotsLead() bool {
	campaign := slices.ContainsFunc(r.Dimensions, func(d compare.Dimension) bool { return d.Declared })
	return campaign && !slices.ContainsFunc(r.Along, func(a compare.Along) bool { return a.Dimension.Declared })
}
