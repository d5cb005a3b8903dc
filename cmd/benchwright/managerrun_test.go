package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// A run's series read through the manager: the listing's answer is read
// bounded and as hostile (names escaped, at most MaxMonitorFiles of them),
// an older manager without the listing gives no series and no error, and
// any other refusal is an error of the run's.
func TestManagerRunReadsTheSeriesBounded(t *testing.T) {
	const run = "/files/perf/StorageBenchmark/b/u1/"
	var listing func(w http.ResponseWriter)
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == run+"monitor/" {
			listing(w)
			return
		}
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		_, _ = io.WriteString(w, "record")
	}))
	defer srv.Close()
	m := managerRun{Fetched: source.Fetched{Name: "file:///store/perf/StorageBenchmark/b/u1/samples.ndjson"},
		reader: &artifactReader{server: srv.URL, client: srv.Client()}, runPath: strings.TrimPrefix(run, "/")}
	list := func(names ...string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			_ = json.NewEncoder(w).Encode(artifactserver.MonitorListing{Files: names})
		}
	}
	read := func() ([]source.MonitorFile, error) {
		t.Helper()
		var files []source.MonitorFile
		var ferr error
		calls := 0
		if err := m.MonitorFiles(context.Background(), []string{"other", m.Name}, func(input string, fs []source.MonitorFile, err error) {
			calls++
			if input != m.Name {
				t.Errorf("found for input %q", input)
			}
			files, ferr = fs, err
			for _, f := range fs {
				rc, err := f.Open(context.Background())
				if err != nil {
					t.Errorf("open %s: %v", f.Name, err)
					continue
				}
				_ = rc.Close()
			}
		}); err != nil || calls != 1 {
			t.Fatalf("MonitorFiles: %v after %d calls of found", err, calls)
		}
		return files, ferr
	}

	listing = list("monitor/0/b-r0-a1.json", "monitor/1/a?x=1#y.json")
	files, err := read()
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	want := []string{run + "monitor/0/b-r0-a1.json?", run + "monitor/1/a?x=1#y.json?"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requested %q, want %q (each name one path, escaped)", got, want)
	}

	names := make([]string, artifactserver.MaxMonitorFiles+50)
	for i := range names {
		names[i] = fmt.Sprintf("monitor/0/p%d.json", i)
	}
	listing = list(names...)
	if files, err := read(); err != nil || len(files) != artifactserver.MaxMonitorFiles {
		t.Errorf("a listing of %d names: %d files, %v; want %d", len(names), len(files), err, artifactserver.MaxMonitorFiles)
	}

	listing = func(w http.ResponseWriter) {
		_, _ = io.WriteString(w, `{"files":["`+strings.Repeat("x", 2<<20)+`"]}`)
	}
	if files, err := read(); err == nil || files != nil {
		t.Errorf("a listing over its bound: %d files, %v", len(files), err)
	}

	listing = func(w http.ResponseWriter) { http.Error(w, "not a path of the artifact layout", http.StatusBadRequest) }
	if files, err := read(); err != nil || files != nil {
		t.Errorf("an older manager (400): %v, %v; want no series and no error", files, err)
	}

	listing = func(w http.ResponseWriter) { http.Error(w, "hpc may not get storagebenchmarks", http.StatusForbidden) }
	if _, err := read(); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a refusal: %v", err)
	}
}

// A run's nodes.json read through the manager: its nodes for the run's own
// input, none (and no error) where the server has none (a run stored
// before it) or answers garbage.
func TestManagerRunReadsTheNodes(t *testing.T) {
	const run = "/files/perf/StorageBenchmark/b/u1/"
	body := `[{"hostname":"n1","machine_type":"e2","facts":{"machine_id":"4c4c","machine_id_source":"dmi","boot_id":"0f3c"},"windows":[{"repetition":0,"start":"2026-11-28T12:00:00Z","end":"2026-11-28T12:00:10Z"}]}]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != run+source.NodesFile {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	m := managerRun{Fetched: source.Fetched{Name: "file:///store/perf/StorageBenchmark/b/u1/samples.ndjson"},
		reader: &artifactReader{server: srv.URL, client: srv.Client()}, runPath: strings.TrimPrefix(run, "/")}
	read := func() []results.NodeInfo {
		t.Helper()
		var got []results.NodeInfo
		if err := m.RunNodes(context.Background(), []string{"other", m.Name}, func(input string, nodes []results.NodeInfo) {
			if input != m.Name {
				t.Errorf("found for input %q", input)
			}
			got = nodes
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	nodes := read()
	if len(nodes) != 1 || nodes[0].Facts == nil || nodes[0].Facts.Machine() != "dmi:4c4c/boot:0f3c" || len(nodes[0].Windows) != 1 {
		t.Errorf("nodes %+v", nodes)
	}
	body = "<html>not json"
	if nodes := read(); nodes != nil {
		t.Errorf("garbage gave %+v", nodes)
	}
	m.runPath = "files/perf/StorageBenchmark/old/u0/"
	if nodes := read(); nodes != nil {
		t.Errorf("a run without nodes.json gave %+v", nodes)
	}
}
