package artifactserver

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/benchwright/benchwright/internal/regress"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/figure"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// HistoryPagePath is the history of configurations as a page: a plot and a
// table per configuration, with its change points.
const HistoryPagePath = "/history"

// maxPlottedConfigs bounds the plots of one page.
const maxPlottedConfigs = 24

var historyTemplate = parsePage("templates/history.html")

type historyPage struct {
	Root, Metric, JSONHref string
	Alpha                  float64
	Configs                []historyConfig
}

type historyConfig struct {
	Name string
	SVG  template.HTML
	Rows []historyRow
}

type historyRow struct {
	Finished, Href, Name, UID, N, Median, Min, Max, Change, Note string
}

// serveHistoryPage answers HistoryPagePath, authorized as serveHistory.
func (h *Handler) serveHistoryPage(w http.ResponseWriter, r *http.Request) {
	hs, q, ok := h.readHistory(w, r)
	if !ok {
		return
	}
	page := historyPage{Root: "./", Metric: q.Metric, Alpha: regress.DefaultAlpha,
		JSONHref: "api/history?" + HistoryValues(q).Encode()}
	for i, hist := range hs {
		if i == maxPlottedConfigs {
			break
		}
		page.Configs = append(page.Configs, historyConfigOf(hist))
	}
	h.render(w, historyTemplate, page)
}

// historyConfigOf is a configuration's plot and table.
func historyConfigOf(hist resultsdb.History) historyConfig {
	c := historyConfig{Name: hist.Config.String()}
	series := make([]float64, len(hist.Points))
	trend := compare.Trend{Title: hist.Config.Test + ": " + hist.Config.Metric, Metric: hist.Config.Metric, Unit: hist.Config.Unit}
	for i, p := range hist.Points {
		series[i] = p.Median
		trend.Points = append(trend.Points, compare.TrendPoint{Finished: p.Finished, Median: p.Median, Min: p.Min, Max: p.Max})
	}
	trend.Changes = regress.ChangePoints(series, regress.Options{})
	if svg, err := figure.Trend(trend); err == nil {
		c.SVG = svg
	}
	for i, p := range hist.Points {
		row := historyRow{
			Finished: p.Finished.Format("2006-01-02 15:04:05"), Name: p.Name, UID: resultsdb.ShortUID(p.RunUID),
			Href: "runs/" + url.PathEscape(hist.Config.Namespace) + "/" + url.PathEscape(hist.Config.Kind) + "/" +
				url.PathEscape(p.Name) + "/" + url.PathEscape(p.RunUID) + "/",
			N: fmt.Sprint(p.N), Median: num(p.Median), Min: num(p.Min), Max: num(p.Max),
		}
		if i > 0 && hist.Points[i-1].Median != 0 {
			row.Change = fmt.Sprintf("%+.1f%%", 100*(p.Median/hist.Points[i-1].Median-1))
		}
		if slices.Contains(trend.Changes, i) {
			dir := "change point"
			if prev := hist.Points[i-1].Median; prev != 0 {
				worse := (p.Median > prev) == results.LowerIsBetter(hist.Config.Metric)
				dir = map[bool]string{true: "change point: worse from here", false: "change point: better from here"}[worse]
			}
			row.Note = dir
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// historyLink is the history query of a run's figure: its series (a
// campaign's cell by its campaign's names), test, metric and group labels.
func historyLink(run *results.RunSummary, s results.Summary) url.Values {
	r := resultsdb.RunOf(*run, "")
	q := resultsdb.Query{Kind: run.Kind, Namespace: run.Namespace, Series: cmp.Or(r.Series, run.Name), Test: s.Test, Metric: s.Metric, Labels: s.Labels}
	if r.Pool != "" {
		q.Labels = maps.Clone(q.Labels)
		if q.Labels == nil {
			q.Labels = map[string]string{}
		}
		q.Labels[results.LabelPool], q.Labels[results.LabelTuning] = r.Pool, r.Tuning
	}
	return HistoryValues(q)
}
