package page

import (
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// alongSummary is a comparison cut to the seed's kind of ratio table: per
// group, each test's first headline figure (fio's IOPS of its direction,
// dd's and IOR's bandwidth), when the comparison has no message sizes (its
// ratios are drawn nowhere) and its table is too long to read at a glance.
// ok is false otherwise.
func alongSummary(a compare.Along) (summary compare.Along, ok bool) {
	rows := a.Rows()
	if len(rows) <= openAlongRows {
		return a, false
	}
	for _, r := range rows {
		if r.MsgSize != "" {
			return a, false
		}
	}
	summary = a
	summary.Groups = make([]compare.AlongGroup, len(a.Groups))
	for i, g := range a.Groups {
		s := g
		s.Rows, s.Steps = nil, nil
		seen := map[string]bool{}
		for j, r := range g.Rows {
			if seen[r.Test] || !results.Headline(r.Metric) {
				continue
			}
			seen[r.Test] = true
			s.Rows = append(s.Rows, r)
			if a.Ladder {
				s.Steps = append(s.Steps, g.Steps[j])
			}
		}
		summary.Groups[i] = s
	}
	return summary, len(summary.Rows()) < len(rows)
}
