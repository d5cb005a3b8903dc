package page

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
)

// trendsHeading and trendsNote head the report's section of trends.
const (
	trendsHeading = "Over time"
	trendsNote    = "Each headline figure of these runs among the earlier runs of its configuration (the same benchmark, pool, tuning and setup), from the results database: a run's median over its repetitions, their range, the level between change points and each change point (E-divisive means, permutation test)."
)

// htmlTrend is a trend drawn for the page.
type htmlTrend struct {
	ID, Title string
	SVG       template.HTML
	Runs      int
}

// trendSections draws the report's trends; one that cannot be drawn is left
// out.
func trendSections(ts []compare.Trend) []htmlTrend {
	var out []htmlTrend
	for i, t := range ts {
		svg, err := figure.Trend(t)
		if err != nil {
			continue
		}
		out = append(out, htmlTrend{ID: fmt.Sprintf("trend-%d", i+1), Title: t.Title, SVG: svg, Runs: len(t.Points)})
	}
	return out
}

// writeTrendsMarkdown writes each trend as a table: run, median, change.
func (r *Report) writeTrendsMarkdown(w io.Writer) error {
	if len(r.Trends) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n## " + trendsHeading + "\n\n" + trendsNote + "\n")
	for _, t := range r.Trends {
		fmt.Fprintf(&b, "\n### %s\n\n| finished (UTC) | median | range | vs previous |\n|---|---:|---:|---:|\n", escapeMD(t.Title))
		for i, p := range t.Points {
			change := ""
			if i > 0 && t.Points[i-1].Median != 0 {
				change = fmt.Sprintf("%+.1f%%", 100*(p.Median/t.Points[i-1].Median-1))
			}
			if slices.Contains(t.Changes, i) {
				change += " (change point)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s–%s | %s |\n", p.Finished.Format("2006-01-02 15:04"), formatValue(p.Median),
				formatValue(p.Min), formatValue(p.Max), change)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
