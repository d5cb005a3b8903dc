package artifactserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/benchwright/benchwright/internal/resultsdb"
)

// HistoryReader answers history queries (*resultsdb.DB).
type HistoryReader interface {
	History(ctx context.Context, q resultsdb.Query) ([]resultsdb.History, error)
	RunHistories(ctx context.Context, uid string, runs int, keep func(resultsdb.Config) bool, maxConfigs int) ([]resultsdb.History, error)
	Acknowledged(ctx context.Context, c resultsdb.Config) ([]string, error)
}

// Bounds of a run's histories (?run=UID): its headline figures' (or the
// metric's) configurations, each's newest runs.
const (
	runHistoryRuns    = 30
	runHistoryConfigs = 50
)

// WithHistory makes h serve /api/history from db and returns h.
func (h *Handler) WithHistory(db HistoryReader) *Handler {
	h.history = db
	return h
}

// HistoryPath is where the history of configurations is served as JSON.
const HistoryPath = "/api/history"

// ParseHistoryQuery reads a history query from URL parameters: metric
// (needed, unless run names a run), test, kind, namespace, series, label
// (k=v, repeated), since (RFC 3339), runs, identity (label keys, repeated).
// With run=UID, the histories are those of the run's configurations (its
// headline figures', or the metric's).
func ParseHistoryQuery(v url.Values) (resultsdb.Query, error) {
	q := resultsdb.Query{
		Metric: v.Get("metric"), Test: v.Get("test"), Kind: v.Get("kind"),
		Namespace: v.Get("namespace"), Series: v.Get("series"), RunUID: v.Get("run"),
		Identity: resultsdb.Identity{Extra: v["identity"]},
	}
	if q.Metric == "" && q.RunUID == "" {
		return q, fmt.Errorf("metric is needed (e.g. ?metric=read_iops), or run (a run's UID)")
	}
	for _, l := range v["label"] {
		k, val, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return q, fmt.Errorf("label %q: want key=value", l)
		}
		if q.Labels == nil {
			q.Labels = map[string]string{}
		}
		q.Labels[k] = val
	}
	if s := v.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return q, fmt.Errorf("since %q: want an RFC 3339 time", s)
		}
		q.Since = t
	}
	if s := v.Get("runs"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10_000 {
			return q, fmt.Errorf("runs %q: want 1 to 10000", s)
		}
		q.Runs = n
	}
	return q, nil
}

// HistoryValues are the URL parameters of q (ParseHistoryQuery's inverse).
func HistoryValues(q resultsdb.Query) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"metric": q.Metric, "test": q.Test, "kind": q.Kind, "namespace": q.Namespace, "series": q.Series, "run": q.RunUID} {
		if s != "" {
			v.Set(k, s)
		}
	}
	for k, s := range q.Labels {
		v.Add("label", k+"="+s)
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339))
	}
	if q.Runs > 0 {
		v.Set("runs", strconv.Itoa(q.Runs))
	}
	for _, k := range q.Identity.Extra {
		v.Add("identity", k)
	}
	return v
}

// serveHistory answers /api/history.
func (h *Handler) serveHistory(w http.ResponseWriter, r *http.Request) {
	hs, _, ok := h.readHistory(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if hs == nil {
		hs = []resultsdb.History{}
	}
	_ = json.NewEncoder(w).Encode(hs)
}

// readHistory answers the request's history query, or the error. Where h
// authorizes, the query must name a namespace and a kind whose benchmarks
// the user may list there.
func (h *Handler) readHistory(w http.ResponseWriter, r *http.Request) ([]resultsdb.History, resultsdb.Query, bool) {
	if h.history == nil {
		http.Error(w, "no results database: the manager runs without --results-db", http.StatusNotFound)
		return nil, resultsdb.Query{}, false
	}
	q, err := ParseHistoryQuery(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, q, false
	}
	if h.auth != nil {
		if q.Namespace == "" || q.Kind == "" {
			http.Error(w, "a history read with a token names its namespace and kind (?namespace=...&kind=StorageBenchmark)", http.StatusBadRequest)
			return nil, q, false
		}
		if !h.mayRead(w, r, q.Namespace, resourceOf(q.Kind), "") {
			return nil, q, false
		}
	}
	var hs []resultsdb.History
	if q.RunUID != "" {
		hs, err = h.runHistories(r, q)
	} else {
		hs, err = h.history.History(r.Context(), q)
	}
	if err != nil {
		if r.Context().Err() == nil {
			h.log.Error(err, "reading a history", "query", r.URL.RawQuery)
		}
		http.Error(w, "reading the history failed: "+err.Error(), http.StatusInternalServerError)
		return nil, q, false
	}
	return hs, q, true
}

// runHistories are the histories of a run's configurations: its headline
// figures' (or q.Metric's, q.Test's), and where q names a namespace or kind
// (a token's reads always do), only configurations of those.
func (h *Handler) runHistories(r *http.Request, q resultsdb.Query) ([]resultsdb.History, error) {
	runs := q.Runs
	if runs == 0 {
		runs = runHistoryRuns
	}
	hs, err := h.history.RunHistories(r.Context(), q.RunUID, runs, func(c resultsdb.Config) bool {
		switch {
		case q.Namespace != "" && c.Namespace != q.Namespace, q.Kind != "" && c.Kind != q.Kind:
			return false
		case q.Test != "" && c.Test != q.Test:
			return false
		case q.Metric != "":
			return c.Metric == q.Metric
		}
		return c.Figure()
	}, runHistoryConfigs)
	return hs, err
}
