package artifactserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

var (
	fioRun = artifacts.Location{Namespace: "perf", Kind: "StorageBenchmark", Name: "c3-randread", UID: "0b6c-11"}
	mpiRun = artifacts.Location{Namespace: "hpc", Kind: "MPIBenchmark", Name: "osu-lat", UID: "7f2e-22"}
)

// newStore writes two runs through the controllers' own writer: the fio
// run finished an hour after the MPI run.
func newStore(t *testing.T) (*artifacts.Store, string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	store, err := artifacts.Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	start := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		loc     artifacts.Location
		started time.Time
		samples []results.Sample
	}{
		{mpiRun, start, []results.Sample{
			{Test: "osu_latency", Metric: "latency", Unit: "us", Value: 1.52, Labels: map[string]string{results.LabelMsgSize: "8"}},
			{Test: "osu_latency", Metric: "latency", Unit: "us", Value: 350.25, Labels: map[string]string{results.LabelMsgSize: "1048576"}},
		}},
		{fioRun, start.Add(time.Hour), []results.Sample{
			{Test: "randread", Metric: "read_iops", Unit: "IOPS", Value: 412345},
			{Test: "randread", Metric: "read_bw", Unit: "MiB/s", Value: 1610.7},
		}},
	} {
		run := runstore.Run{Store: store, Location: r.loc, Started: r.started, Finished: r.started.Add(10 * time.Minute)}
		nodes := []results.NodeInfo{{Hostname: "node-a", MachineType: "c3-standard-8", Kernel: "6.1.0"}}
		if _, err := run.AddRepetition(ctx, 0, r.samples, nodes, results.SummarizeOptions{GroupBy: []string{results.LabelMsgSize}}); err != nil {
			t.Fatal(err)
		}
		if err := run.PutRawLog(ctx, 0, "bench-0", []byte("tool output\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := (runstore.Run{Store: store, Location: fioRun}).PutJobFile(ctx, []byte("[randread]\nrw=randread\n")); err != nil {
		t.Fatal(err)
	}
	if err := (runstore.Run{Store: store, Location: mpiRun}).PutSteps(ctx, []byte(`{"steps":[]}`)); err != nil {
		t.Fatal(err)
	}
	report, err := fioRun.Report()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, report, []byte("<!DOCTYPE html><title>report</title>"), "text/html"); err != nil {
		t.Fatal(err)
	}
	return store, dir
}

func get(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestIndexListsRunsNewestFirst(t *testing.T) {
	store, _ := newStore(t)
	w := get(t, New(store, testr.New(t)), http.MethodGet, "/")
	if w.Code != http.StatusOK {
		t.Fatalf("GET / = %d\n%s", w.Code, w.Body)
	}
	body := w.Body.String()
	fio := strings.Index(body, `href="runs/perf/StorageBenchmark/c3-randread/0b6c-11/"`)
	mpi := strings.Index(body, `href="runs/hpc/MPIBenchmark/osu-lat/7f2e-22/"`)
	if fio < 0 || mpi < 0 || fio > mpi {
		t.Errorf("want links to both runs, the fio run (newer) first; got\n%s", body)
	}
	for _, want := range []string{
		`href="files/perf/StorageBenchmark/c3-randread/0b6c-11/report.html"`, "c3-standard-8", "2025-03-01 11:10:00Z", "10m0s",
		// Each run's headline figure: a latency at its smallest size.
		"<td>412,345 IOPS randread</td>", "<td>1.520 µs osu_latency at 8 B</td>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	checkSelfContained(t, w)
}

func TestRunPageShowsFiguresAndFiles(t *testing.T) {
	store, _ := newStore(t)
	h := New(store, testr.New(t))
	w := get(t, h, http.MethodGet, "/runs/hpc/MPIBenchmark/osu-lat/7f2e-22/")
	if w.Code != http.StatusOK {
		t.Fatalf("GET run = %d\n%s", w.Code, w.Body)
	}
	body := w.Body.String()
	for _, want := range []string{
		"MPIBenchmark hpc/osu-lat", "osu_latency", "msg_size=8", "1.52", "msg_size=1048576", "350.2", "node-a",
		`href="../../../../../files/hpc/MPIBenchmark/osu-lat/7f2e-22/summary.json"`,
		`href="../../../../../files/hpc/MPIBenchmark/osu-lat/7f2e-22/samples.csv"`,
		`href="../../../../../files/hpc/MPIBenchmark/osu-lat/7f2e-22/steps.json"`,
		`href="../../../../../files/hpc/MPIBenchmark/osu-lat/7f2e-22/raw/0/bench-0.log"`,
		`href="../../../../../"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks %q\n%s", want, body)
		}
	}
	checkSelfContained(t, w)

	if w := get(t, h, http.MethodGet, "/runs/hpc/MPIBenchmark/osu-lat/7f2e-22"); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "./7f2e-22/" {
		t.Errorf("run page without its slash = %d to %q, want a redirect to ./7f2e-22/", w.Code, w.Header().Get("Location"))
	}
	// A UID that reads as a URL stays a path of this server.
	for _, uid := range []string{"https:evil.example", "javascript:alert(1)"} {
		w := get(t, h, http.MethodGet, "/runs/hpc/MPIBenchmark/osu-lat/"+uid)
		loc, err := url.Parse(w.Header().Get("Location"))
		if w.Code != http.StatusMovedPermanently || err != nil || loc.Scheme != "" || loc.Host != "" || !strings.HasPrefix(loc.Path, "./") {
			t.Errorf("run %s without its slash = %d to %q, want a redirect within the server", uid, w.Code, w.Header().Get("Location"))
		}
	}
	if w := get(t, h, http.MethodGet, "/runs/hpc/MPIBenchmark/osu-lat/other/"); w.Code != http.StatusNotFound {
		t.Errorf("unknown run = %d, want 404", w.Code)
	}
}

func TestFilesAreServedWithTheirContentType(t *testing.T) {
	store, _ := newStore(t)
	srv := httptest.NewServer(New(store, testr.New(t)))
	defer srv.Close()
	base := srv.URL + "/files/perf/StorageBenchmark/c3-randread/0b6c-11/"
	for file, want := range map[string]string{
		"summary.json":      "application/json",
		"nodes.json":        "application/json",
		"samples.csv":       "text/csv; charset=utf-8",
		"samples.ndjson":    "application/x-ndjson",
		"raw/0/bench-0.log": "text/plain; charset=utf-8",
		"report.html":       "text/html; charset=utf-8",
		"job.fio":           "text/plain; charset=utf-8",
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, base+file, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != want {
				t.Errorf("%s %s = %d %q, want 200 %q", method, file, resp.StatusCode, resp.Header.Get("Content-Type"), want)
			}
			if method == http.MethodGet && len(body) == 0 || method == http.MethodHead && len(body) != 0 {
				t.Errorf("%s %s: body of %d bytes", method, file, len(body))
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s: no nosniff", method, file)
			}
			if file == "report.html" && resp.Header.Get("Content-Security-Policy") != filePolicy {
				t.Errorf("report.html's policy = %q", resp.Header.Get("Content-Security-Policy"))
			}
		}
	}
	resp, err := http.Get(base + "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"read_iops"`) {
		t.Errorf("summary.json = %s", body)
	}
}

func TestNothingOutsideTheLayoutIsServed(t *testing.T) {
	store, dir := newStore(t)
	ctx := context.Background()
	// A file beside the store and one in a run but outside the layout.
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, "perf/StorageBenchmark/c3-randread/0b6c-11/other.txt", []byte("secret"), ""); err != nil {
		t.Fatal(err)
	}
	h := New(store, testr.New(t))
	run := "/files/perf/StorageBenchmark/c3-randread/0b6c-11/"
	for _, target := range []string{
		"/files/../secret",
		"/files/../../secret",
		run + "../../../../../secret",
		run + "raw/0/../../summary.json",
		"/files/%2e%2e/secret",
		"/files/perf/StorageBenchmark/c3-randread/%2e%2e/%2e%2e/secret",
		run + "raw/0/..%2f..%2fsummary.json",
		run + "raw%2f0%2fbench-0.log%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fsecret",
		"/files/" + strings.TrimPrefix(filepath.Join(filepath.Dir(dir), "secret"), "/"),
		"/files//" + strings.TrimPrefix(filepath.Join(filepath.Dir(dir), "secret"), "/"),
		"/files/perf/StorageBenchmark/c3-randread/0b6c-11",
		run,
		run + "raw/",
		run + "raw/0/",
		run + "raw/00/bench-0.log",
		run + "raw/-1/bench-0.log",
		run + "raw/0/bench-0",
		run + "other.txt",
		run + "summary.json/",
		run + "summary.json%00",
		"/files/perf\\..\\..\\secret/StorageBenchmark/c3-randread/0b6c-11/summary.json",
		"/runs/../../secret/",
		"/runs/perf/StorageBenchmark/c3-randread/0b6c-11/../../../../../../secret/",
		"/runs/%2e%2e/StorageBenchmark/c3-randread/0b6c-11/",
		"/runs/perf/StorageBenchmark/",
		"/secret",
		"/files",
		"/runs",
	} {
		w := get(t, h, http.MethodGet, target)
		if w.Code != http.StatusNotFound && w.Code != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 404 or 400\n%s", target, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), "secret") && !strings.Contains(target, "secret") {
			t.Errorf("GET %s served a secret", target)
		}
	}
}

func TestOnlyGetAndHead(t *testing.T) {
	store, _ := newStore(t)
	h := New(store, testr.New(t))
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		for _, target := range []string{"/", "/files/perf/StorageBenchmark/c3-randread/0b6c-11/summary.json"} {
			w := get(t, h, method, target)
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s = %d (Allow %q), want 405", method, target, w.Code, w.Header().Get("Allow"))
			}
		}
	}
	key, _ := fioRun.Summary()
	if ok, err := store.Exists(context.Background(), key); err != nil || !ok {
		t.Errorf("summary.json gone after the refused requests: %v %v", ok, err)
	}
}

func TestEmptyStore(t *testing.T) {
	store, err := artifacts.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, New(store, testr.New(t)), http.MethodGet, "/")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "No runs yet") {
		t.Errorf("GET / of an empty store = %d\n%s", w.Code, w.Body)
	}
}

// checkSelfContained fails when a page could load anything: scripts,
// external URLs, or no policy forbidding them.
func checkSelfContained(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	body := w.Body.String()
	// An inline SVG's namespace names are names, never fetched.
	for _, ns := range []string{`xmlns="http://www.w3.org/2000/svg"`, `xmlns:xlink="http://www.w3.org/1999/xlink"`} {
		body = strings.ReplaceAll(body, ns, "")
	}
	for _, bad := range []string{"<script", "http://", "https://", "src=", "@import", "url("} {
		if strings.Contains(body, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	if w.Header().Get("Content-Security-Policy") != pagePolicy || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("page headers: %v", w.Header())
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{412345.4: "412345", 1610.7: "1611", 350.25: "350.2", 1.523: "1.52", 0.00123: "0.00123", 0: "0"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}
