package artifactserver

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// The index is built from a bounded listing of the store, at most every
// indexTTL: the summaries of every run are read then, not on every request.
const (
	indexTTL     = 30 * time.Second
	maxIndexKeys = 100_000
	// maxRunKeys bounds the listing of one run (its raw logs above all).
	maxRunKeys = 10_000
)

// indexCache is the last index built, for every caller; what one caller
// sees of it is filtered per request.
type indexCache struct {
	mu        sync.Mutex
	built     time.Time
	runs      []*run
	campaigns []campaignRow
	truncated bool
}

// get is the index, built again if it is older than indexTTL. One request
// builds it while the others wait for it.
func (h *Handler) indexData(ctx context.Context) (*indexCache, error) {
	c := h.index
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.built.IsZero() && time.Since(c.built) < indexTTL {
		return c, nil
	}
	keys, truncated, err := h.store.ListN(ctx, "", maxIndexKeys)
	if err != nil {
		return nil, err
	}
	runs := groupRuns(keys)
	for _, run := range runs {
		h.readSummary(ctx, run)
	}
	newestFirst(runs)
	c.runs, c.campaigns, c.truncated, c.built = runs, h.describeCampaigns(ctx, campaigns(keys)), truncated, time.Now()
	return c, nil
}

// serveIndex lists the runs of the store, newest first: those the caller
// may read.
func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	idx, err := h.indexData(r.Context())
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	h.index.mu.Lock()
	runs, camps, truncated := idx.runs, idx.campaigns, idx.truncated
	h.index.mu.Unlock()
	may := h.readFilter(r)
	var rows []indexRow
	for _, run := range runs {
		if ok, err := may(run.Namespace, resourceOf(run.Kind)); err != nil {
			h.authError(w, err)
			return
		} else if !ok {
			continue
		}
		row := indexRow{
			Location: run.Location, Href: "runs/" + run.path() + "/", Times: timesOf(run.Summary),
			Machines: run.machineTypes(),
		}
		if run.Summary != nil {
			row.Figures = len(run.Summary.Summaries)
			row.Headline = headlineOf(run.Summary)
		}
		if slices.Contains(run.Files, "report.html") {
			row.ReportHref = "files/" + run.fileHref("report.html")
		}
		rows = append(rows, row)
	}
	var shown []campaignRow
	for _, c := range camps {
		if ok, err := may(c.Namespace, CampaignReportsResource); err != nil {
			h.authError(w, err)
			return
		} else if ok {
			shown = append(shown, c)
		}
	}
	h.render(w, indexTemplate, indexPage{Runs: rows, Campaigns: shown, Truncated: truncated})
}

// readFilter says, per namespace and resource, whether the caller may get
// every object of it there (one SubjectAccessReview each, cached).
func (h *Handler) readFilter(r *http.Request) func(namespace, resource string) (bool, error) {
	if h.auth == nil {
		return func(string, string) (bool, error) { return true, nil }
	}
	user, _ := r.Context().Value(userKey{}).(User)
	seen := map[[2]string]bool{}
	return func(namespace, resource string) (bool, error) {
		k := [2]string{namespace, resource}
		if ok, done := seen[k]; done {
			return ok, nil
		}
		ok, err := h.auth.MayRead(r.Context(), user, namespace, resource, "")
		if err != nil {
			return false, err
		}
		seen[k] = ok
		return ok, nil
	}
}

// readablePrefix is the store prefix of the run at loc, once the request
// may read it; when not (ok false), the request has its answer.
func (h *Handler) readablePrefix(w http.ResponseWriter, r *http.Request, loc artifacts.Location) (prefix string, ok bool) {
	if !h.mayRead(w, r, loc.Namespace, resourceOf(loc.Kind), loc.Name) {
		return "", false
	}
	prefix, err := loc.Prefix()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return "", false
	}
	return prefix, true
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
		// "./" keeps a UID such as "https:evil.example" a path of this server.
		w.Header().Set("Location", "./"+url.PathEscape(loc.UID)+"/")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	prefix, ok := h.readablePrefix(w, r, loc)
	if !ok {
		return
	}
	keys, _, err := h.store.ListN(r.Context(), prefix, maxRunKeys)
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
			row := rowOf(sum)
			if h.history != nil && results.Headline(sum.Metric) && sum.Labels[sampler.LabelSource] != sampler.SourceValue {
				row.HistoryHref = root + "history?" + historyLink(s, sum).Encode()
			}
			page.Rows = append(page.Rows, row)
		}
	}
	h.render(w, runTemplate, page)
}

// indexRow is one run on the index.
// indexPage is the index: the runs and the published campaign reports.
type indexPage struct {
	Runs      []indexRow
	Campaigns []campaignRow
	// Truncated: the store holds more than the index lists.
	Truncated bool
}

type indexRow struct {
	artifacts.Location
	Href       string
	ReportHref string
	Machines   string
	Figures    int
	// Headline is the run's headline figure.
	Headline string
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
type summaryRow struct {
	Test, Metric, Labels, Unit, Median, Min, Max, CV, N string
	// HistoryHref is the history of the figure's configuration, when the
	// server has a results database and the figure is a headline one.
	HistoryHref string
}

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
