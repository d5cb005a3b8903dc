package artifactserver

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
)

// index lists the runs of the store, newest first.
func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	keys, err := h.store.List(r.Context(), "")
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	runs := groupRuns(keys)
	for _, run := range runs {
		h.readSummary(r.Context(), run)
	}
	newestFirst(runs)
	rows := make([]indexRow, len(runs))
	for i, run := range runs {
		rows[i] = indexRow{
			Location: run.Location, Href: "runs/" + run.path() + "/", Times: timesOf(run.Summary),
			Machines: run.machineTypes(),
		}
		if run.Summary != nil {
			rows[i].Figures = len(run.Summary.Summaries)
		}
		if slices.Contains(run.Files, "report.html") {
			rows[i].ReportHref = "files/" + run.fileHref("report.html")
		}
	}
	h.render(w, indexTemplate, indexPage{Runs: rows, Campaigns: campaigns(keys)})
}

// run shows one run's figures, nodes and files.
func (h *Handler) run(w http.ResponseWriter, r *http.Request, path string) {
	trimmed, slash := strings.CutSuffix(path, "/")
	loc, err := parseLocation(strings.Split(trimmed, "/"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !slash { // the page's links are relative to the run's "directory"
		w.Header().Set("Location", url.PathEscape(loc.UID)+"/")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	prefix, err := loc.Prefix()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	keys, err := h.store.List(r.Context(), prefix)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	runs := groupRuns(keys)
	if len(runs) == 0 {
		http.NotFound(w, r)
		return
	}
	run := runs[0]
	h.readSummary(r.Context(), run)
	const root = "../../../../../"
	page := runPage{Location: loc, Root: root, Times: timesOf(run.Summary)}
	for _, f := range run.Files {
		href := root + "files/" + run.fileHref(f)
		page.Files = append(page.Files, link{Name: f, Href: href})
		if f == "report.html" {
			page.ReportHref = href
		}
	}
	if s := run.Summary; s != nil {
		page.Nodes = s.Nodes
		for _, sum := range s.Summaries {
			page.Rows = append(page.Rows, rowOf(sum))
		}
	}
	h.render(w, runTemplate, page)
}

// indexRow is one run on the index.
// indexPage is the index: the runs and the published campaign reports.
type indexPage struct {
	Runs      []indexRow
	Campaigns []campaign
}

type indexRow struct {
	artifacts.Location
	Href       string
	ReportHref string
	Machines   string
	Figures    int
	Times
}

// runPage is one run's page.
type runPage struct {
	artifacts.Location
	Root       string
	ReportHref string
	Times
	Nodes []results.NodeInfo
	Rows  []summaryRow
	Files []link
}

type link struct{ Name, Href string }

// Times are a run's start, end and duration as shown, "" when unknown.
type Times struct{ Started, Finished, Duration string }

func timesOf(s *results.RunSummary) Times {
	if s == nil {
		return Times{}
	}
	t := Times{Started: stamp(s.Started), Finished: stamp(s.Finished)}
	if !s.Started.IsZero() && s.Finished.After(s.Started) {
		t.Duration = s.Finished.Sub(s.Started).Round(time.Second).String()
	}
	return t
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// summaryRow is one figure of summary.json.
type summaryRow struct{ Test, Metric, Labels, Unit, Median, Min, Max, CV, N string }

func rowOf(s results.Summary) summaryRow {
	labels := make([]string, 0, len(s.Labels))
	for k, v := range s.Labels {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	st := s.Stats
	return summaryRow{
		Test: s.Test, Metric: s.Metric, Labels: strings.Join(labels, " "), Unit: s.Unit,
		Median: num(st.Median), Min: num(st.Min), Max: num(st.Max),
		CV: fmt.Sprintf("%.1f%%", st.CV), N: strconv.Itoa(st.N),
	}
}

// num shows a figure with about four significant digits, without exponents
// for the usual ranges.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}
