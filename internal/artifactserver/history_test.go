package artifactserver

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/internal/runstore"
)

// historyDB is a SQLite results database of newStore's runs, both
// succeeded, indexed by a backfill.
func historyDB(t *testing.T) (*artifacts.Store, *resultsdb.DB) {
	t.Helper()
	ctx := context.Background()
	store, _ := newStore(t)
	for _, loc := range []artifacts.Location{fioRun, mpiRun} {
		if err := (runstore.Run{Store: store, Location: loc}).PutSucceeded(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	db, err := resultsdb.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if res, err := resultsdb.Backfill(ctx, db, store); err != nil || res.Indexed != 2 {
		t.Fatalf("backfill: %+v, %v; want 2 runs indexed", res, err)
	}
	return store, db
}

func TestHistoryIsServedAsJSON(t *testing.T) {
	store, db := historyDB(t)
	h := New(store, testr.New(t)).WithHistory(db)
	w := get(t, h, http.MethodGet, HistoryPath+"?metric=latency&label=msg_size%3D8")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	var hs []resultsdb.History
	if err := json.Unmarshal(w.Body.Bytes(), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Config.Series != "osu-lat" || hs[0].Config.Labels["msg_size"] != "8" ||
		len(hs[0].Points) != 1 || hs[0].Points[0].Median != 1.52 || hs[0].Points[0].RunUID != mpiRun.UID {
		t.Errorf("history %+v", hs)
	}
	for target, want := range map[string]int{
		HistoryPath:                          http.StatusBadRequest, // no metric
		HistoryPath + "?metric=x&label=nope": http.StatusBadRequest,
		HistoryPath + "?metric=x&runs=0":     http.StatusBadRequest,
		HistoryPath + "?metric=x&since=soon": http.StatusBadRequest,
		HistoryPath + "?metric=nothing":      http.StatusOK,
	} {
		if w := get(t, h, http.MethodGet, target); w.Code != want {
			t.Errorf("%s: %d %s, want %d", target, w.Code, w.Body, want)
		}
	}
	if w := get(t, h, http.MethodGet, HistoryPath+"?metric=nothing"); strings.TrimSpace(w.Body.String()) != "[]" {
		t.Errorf("an empty history is %q, want []", w.Body)
	}
	if w := get(t, New(store, testr.New(t)), http.MethodGet, HistoryPath+"?metric=latency"); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "--results-db") {
		t.Errorf("without a database: %d %s", w.Code, w.Body)
	}
}

// With tokens, a history names its namespace and kind, and the user must
// be allowed to get that kind there.
func TestHistoryWithATokenIsAuthorized(t *testing.T) {
	store, db := historyDB(t)
	h := NewPublishing(store, tokens{"perf-token": "perf"}, testr.New(t)).WithHistory(db)
	for target, want := range map[string]int{
		HistoryPath + "?metric=read_iops":                                      http.StatusBadRequest,
		HistoryPath + "?metric=read_iops&namespace=perf":                       http.StatusBadRequest,
		HistoryPath + "?metric=latency&namespace=hpc&kind=MPIBenchmark":        http.StatusForbidden,
		HistoryPath + "?metric=read_iops&namespace=perf&kind=StorageBenchmark": http.StatusOK,
	} {
		if w := getAs(t, h, target, "perf-token"); w.Code != want {
			t.Errorf("%s: %d %s, want %d", target, w.Code, w.Body, want)
		}
	}
	if w := get(t, h, http.MethodGet, HistoryPath+"?metric=read_iops&namespace=perf&kind=StorageBenchmark"); w.Code != http.StatusUnauthorized {
		t.Errorf("without a token: %d", w.Code)
	}
}

func TestHistoryQueryRoundTrips(t *testing.T) {
	q := resultsdb.Query{Metric: "latency", Test: "osu_latency", Kind: "MPIBenchmark", Namespace: "hpc", Series: "osu",
		Labels: map[string]string{"msg_size": "8", "machine_type": "c3"}, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Runs: 12, Identity: resultsdb.Identity{Extra: []string{"node"}}}
	got, err := ParseHistoryQuery(HistoryValues(q))
	if err != nil || got.Metric != q.Metric || got.Test != q.Test || got.Kind != q.Kind || got.Namespace != q.Namespace ||
		got.Series != q.Series || len(got.Labels) != 2 || got.Labels["msg_size"] != "8" || !got.Since.Equal(q.Since) ||
		got.Runs != 12 || len(got.Identity.Extra) != 1 {
		t.Errorf("%+v (%v), want %+v", got, err, q)
	}
}
