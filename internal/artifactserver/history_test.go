package artifactserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/historycheck"
	"github.com/benchwright/benchwright/internal/regress"
	"github.com/benchwright/benchwright/internal/results"
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

// nightlyDB is a results database of 15 nightly fio runs: 10 at about 88k
// IOPS, then 5 at about 79k.
func nightlyDB(t *testing.T) *resultsdb.DB {
	t.Helper()
	db, err := resultsdb.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	night := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	for i := range 15 {
		level := 88000.0
		if i >= 10 {
			level = 79000
		}
		var samples []results.Sample
		for rep := range 3 {
			v := level * (1 + 0.004*float64((i*7+rep*3)%5-2))
			samples = append(samples, results.Sample{Test: "randread-4k", Metric: "read_iops", Unit: "IOPS", Value: v, Repetition: rep,
				Labels: map[string]string{results.LabelMachineType: "c3-standard-8"}})
		}
		uid := fmt.Sprintf("run-%02d-5d1c-4c8e-9a77-0e6f", i)
		run := resultsdb.Run{UID: uid, Kind: "StorageBenchmark", Namespace: "perf", Name: "fio-nightly",
			Campaign: map[bool]string{true: fmt.Sprintf("nightly-%02d", i)}[i%2 == 0],
			Started:  night.AddDate(0, 0, i), Finished: night.AddDate(0, 0, i).Add(12 * time.Minute),
			Location: "perf/StorageBenchmark/fio-nightly/" + uid + "/"}
		if _, err := db.Index(context.Background(), run, resultsdb.SamplesOf(samples)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestHistoryPagePlotsChangePoints(t *testing.T) {
	store, _ := newStore(t)
	h := New(store, testr.New(t)).WithHistory(nightlyDB(t))
	w := get(t, h, http.MethodGet, HistoryPagePath+"?metric=read_iops&namespace=perf")
	if w.Code != http.StatusOK {
		t.Fatalf("%d: %s", w.Code, w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{
		"<svg", "StorageBenchmark perf/fio-nightly randread-4k read_iops (machine_type=c3-standard-8)",
		"change point: worse from here", `href="runs/perf/StorageBenchmark/fio-nightly/run-10-5d1c-4c8e-9a77-0e6f/"`,
		"-10.2 %", // the change's label on the plot
		// Who made each run: a campaign (its labels only the campaign
		// account sets), or someone by hand.
		"<td>campaign nightly-10</td>", "<td>by hand</td>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(body, "change point: ") != 1 {
		t.Errorf("want one change point, at run 11")
	}
	checkSelfContained(t, w)
	if out := os.Getenv("HISTORY_PAGE_OUT"); out != "" {
		_ = os.WriteFile(out, w.Body.Bytes(), 0o644)
	}
}

// A run's page links each headline figure to its history, when the server
// has a results database.
func TestRunPageLinksToHistory(t *testing.T) {
	store, db := historyDB(t)
	w := get(t, New(store, testr.New(t)).WithHistory(db), http.MethodGet, "/runs/hpc/MPIBenchmark/osu-lat/7f2e-22/")
	want := `href="../../../../../history?kind=MPIBenchmark&amp;label=msg_size%3D8&amp;metric=latency&amp;namespace=hpc&amp;series=osu-lat&amp;test=osu_latency"`
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
		t.Errorf("%d: the run page lacks %s\n%s", w.Code, want, w.Body)
	}
	if w := get(t, New(store, testr.New(t)), http.MethodGet, "/runs/hpc/MPIBenchmark/osu-lat/7f2e-22/"); strings.Contains(w.Body.String(), "history?") {
		t.Error("without a results database, the run page links to a history")
	}
}

// The page and /api/history/check say the verdict the manager's condition
// says (package historycheck on the same runs): regressed since run 11,
// with the noise it can see through.
func TestHistoryPageShowsTheManagersVerdict(t *testing.T) {
	store, _ := newStore(t)
	db := nightlyDB(t)
	h := New(store, testr.New(t)).WithHistory(db)
	const newest = "run-14-5d1c-4c8e-9a77-0e6f"
	want, err := historycheck.Run(context.Background(), db, newest)
	if err != nil || want.Verdict.Change != regress.Regressed {
		t.Fatalf("the manager's check: %v %+v", err, want.Verdict)
	}
	w := get(t, h, http.MethodGet, HistoryCheckPath+"?run="+newest)
	var got historycheck.Result
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &got) != nil || got.Message != want.Message {
		t.Errorf("%s: %d %s, want the message %q", HistoryCheckPath, w.Code, w.Body, want.Message)
	}
	page := get(t, h, http.MethodGet, HistoryPagePath+"?metric=read_iops&namespace=perf").Body.String()
	for _, s := range []string{`<p class="bad">Newest run: Regressed since run fio-nightly run-10-5: -10.2%`, "(change point, 5 run(s) since against 10 before", "run to run: the smallest change it detects within 3 runs"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}
