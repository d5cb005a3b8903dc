package artifactserver

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/benchwright/benchwright/internal/historycheck"
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
	// Verdict is the detector's at the newest run (the manager's, for the
	// same runs), Regressed marks a regression, Noise the run-to-run noise
	// and the smallest change it detects, Run the run's verdict over all its
	// headline figures when that says more.
	Verdict, Noise, Run string
	Regressed           bool
}

type historyRow struct {
	Finished, Href, Name, UID, MadeBy, N, Median, Min, Max, Change, Note string
}

// madeBy says who made a run: its campaign (the labels only the campaign
// account may set, the chart's campaign-labels policy), or a person.
func madeBy(p resultsdb.Point) string {
	if p.Campaign != "" {
		return "campaign " + p.Campaign
	}
	return "by hand"
}

// serveHistoryPage answers HistoryPagePath, authorized as serveHistory.
func (h *Handler) serveHistoryPage(w http.ResponseWriter, r *http.Request) {
	hs, q, ok := h.readHistory(w, r)
	if !ok {
		return
	}
	page := historyPage{Root: "./", Metric: q.Metric, Alpha: regress.DefaultChangeAlpha,
		JSONHref: "api/history?" + HistoryValues(q).Encode()}
	checks := map[string]historycheck.Result{}
	for i, hist := range hs {
		if i == maxPlottedConfigs {
			break
		}
		f, res, ok := h.checkNewest(r, hist, checks)
		page.Configs = append(page.Configs, historyConfigOf(hist, f, res, ok))
	}
	h.render(w, historyTemplate, page)
}

// checkNewest is the finding of hist's configuration at its newest run,
// checked once per run (checks caches them); ok is false when it could not
// be checked.
func (h *Handler) checkNewest(r *http.Request, hist resultsdb.History, checks map[string]historycheck.Result) (historycheck.Finding, historycheck.Result, bool) {
	if len(hist.Points) == 0 {
		return historycheck.Finding{}, historycheck.Result{}, false
	}
	uid := hist.Points[len(hist.Points)-1].RunUID
	res, done := checks[uid]
	if !done {
		var err error
		if res, err = historycheck.Run(r.Context(), h.history, uid); err != nil {
			h.log.Error(err, "checking a run's history", "run", uid)
			return historycheck.Finding{}, res, false
		}
		checks[uid] = res
	}
	f, ok := res.Finding(hist.Config)
	return f, res, ok
}

// historyConfigOf is a configuration's plot and table: with its finding
// (ok), the detector's history, change points and verdict.
func historyConfigOf(hist resultsdb.History, f historycheck.Finding, res historycheck.Result, ok bool) historyConfig {
	c := historyConfig{Name: hist.Config.String()}
	if ok {
		hist = f.History
	}
	series := make([]float64, len(hist.Points))
	trend := compare.Trend{Title: hist.Config.Test + ": " + hist.Config.Metric, Metric: hist.Config.Metric, Unit: hist.Config.Unit}
	for i, p := range hist.Points {
		series[i] = p.Median
		trend.Points = append(trend.Points, compare.TrendPoint{Finished: p.Finished, Median: p.Median, Min: p.Min, Max: p.Max})
	}
	if ok {
		v := f.Verdict
		trend.Changes = v.ChangePoints
		c.Verdict = v.Describe(func(i int) string { return hist.Points[i].Name + " " + resultsdb.ShortUID(hist.Points[i].RunUID) })
		c.Regressed = v.Change == regress.Regressed
		if v.Detectable > 0 {
			c.Noise = fmt.Sprintf("%.1f %% run to run: the smallest change it detects within 3 runs (90 %% of the time) is %.1f %%", 100*v.Noise, 100*v.Detectable)
		}
		if res.Verdict.Change != v.Change || res.Verdict.Method != v.Method {
			c.Run = res.Message
		}
	} else {
		trend.Changes = regress.ChangePoints(series, regress.Options{})
	}
	if svg, err := figure.Trend(trend); err == nil {
		c.SVG = svg
	}
	outliers := map[int]bool{}
	for _, i := range f.Verdict.Outliers {
		outliers[i] = ok
	}
	for i, p := range hist.Points {
		row := historyRow{
			Finished: p.Finished.Format("2006-01-02 15:04:05"), Name: p.Name, UID: resultsdb.ShortUID(p.RunUID), MadeBy: madeBy(p),
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
		if outliers[i] {
			row.Note = strings.TrimPrefix(row.Note+"; one-off", "; ")
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
