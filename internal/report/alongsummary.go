package report

import "github.com/benchwright/benchwright/internal/results"

// alongSummary is a comparison cut to the seed's kind of ratio table: per
// group, each test's first headline figure (fio's IOPS of its direction,
// dd's and IOR's bandwidth), when the comparison has no message sizes (its
// ratios are drawn nowhere) and its table is too long to read at a glance.
// ok is false otherwise.
func alongSummary(a Along) (summary Along, ok bool) {
	rows := a.rows()
	if len(rows) <= openAlongRows {
		return a, false
	}
	for _, r := range rows {
		if r.MsgSize != "" {
			return a, false
		}
	}
	summary = a
	summary.Groups = make([]AlongGroup, len(a.Groups))
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
	return summary, len(summary.rows()) < len(rows)
}
