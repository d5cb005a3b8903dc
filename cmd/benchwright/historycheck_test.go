package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/test/util"
)

// nightlyFiles writes 23 nights of a fio benchmark's samples as parse's
// NDJSON files, a job's IOPS and its bandwidth at 2 % run-to-run noise,
// the last 3 nights 10 % slower; and a local run's directory, as
// benchwright run leaves it, of one more night like them.
func nightlyFiles(t *testing.T) (files []string, localRun string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(45, 1))
	night := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	samples := func(i int) []results.Sample {
		level := 90000.0
		if i >= 20 {
			level *= 0.9
		}
		var out []results.Sample
		for rep := range 3 {
			v := level * (1 + 0.02*rng.NormFloat64())
			l := map[string]string{results.LabelMachineType: "c3-standard-8", results.LabelNode: "n1"}
			ts := night.AddDate(0, 0, i)
			out = append(out,
				results.Sample{Kind: "StorageBenchmark", Namespace: "perf", Benchmark: "fio-nightly", Test: "randread-4k", Metric: "read_iops", Unit: "IOPS", Value: v, Repetition: rep, Timestamp: ts, Labels: l},
				results.Sample{Kind: "StorageBenchmark", Namespace: "perf", Benchmark: "fio-nightly", Test: "randread-4k", Metric: "read_bw", Unit: "B/s", Value: v * 4096, Repetition: rep, Timestamp: ts, Labels: l})
		}
		return out
	}
	for i := range 23 {
		var b bytes.Buffer
		if err := results.WriteNDJSON(&b, samples(i)); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, fmt.Sprintf("night-%02d.ndjson", i))
		if err := os.WriteFile(f, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	localRun = filepath.Join(dir, "benchwright-results", "fio-nightly")
	if err := os.MkdirAll(localRun, 0o750); err != nil {
		t.Fatal(err)
	}
	last := samples(23)
	for i := range last {
		last[i].RunUID = "local-0123456789abcdef"
	}
	sum := results.RunSummary{RunUID: "local-0123456789abcdef", Kind: "StorageBenchmark", Namespace: "perf", Name: "fio-nightly",
		Started: night.AddDate(0, 0, 23), Finished: night.AddDate(0, 0, 23).Add(time.Minute)}
	data, _ := json.Marshal(sum)
	var b bytes.Buffer
	if err := results.WriteNDJSON(&b, last); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{results.SummaryFile: data, results.SamplesNDJSONFile: b.Bytes()} {
		if err := os.WriteFile(filepath.Join(localRun, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return files, localRun
}

// index puts runs made elsewhere into a database, and history --check
// gives the manager's verdict on them, in each format, on SQLite and on a
// real PostgreSQL.
func TestIndexAndHistoryCheck(t *testing.T) {
	pg, err := util.StartPostgres()
	if err != nil {
		t.Fatalf("a real PostgreSQL: %v", err)
	}
	t.Cleanup(pg.Stop)
	files, localRun := nightlyFiles(t)
	for engine, db := range map[string]string{"sqlite": "sqlite://" + filepath.Join(t.TempDir(), "results.db"), "postgres": pg.URL} {
		t.Run(engine, func(t *testing.T) {
			out, stderr, err := runCLI(t, append([]string{"index", "--db", db}, files...)...)
			if err != nil || strings.Count(out, " indexed\n") != len(files) {
				t.Fatalf("index: %v\n%s%s", err, out, stderr)
			}
			if out, _, err = runCLI(t, "index", "--db", db, files[0], localRun); err != nil ||
				!strings.Contains(out, "is there already") || !strings.Contains(out, "(local-0123456789abcdef) indexed") {
				t.Fatalf("index again, and a local run: %v\n%s", err, out)
			}
			out, stderr, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "-A", "--check")
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			t.Logf("history --check:\n%s", out)
			for _, want := range []string{
				"verdict at fio-nightly 01234567: Regressed since run fio-nightly ",
				"(change point, 4 run(s) since against 20 before, p = ", "level: ", "noise: ", "run to run; the smallest change it detects within 3 runs",
				"RUN-TO-RUN CV",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("history --check lacks %q", want)
				}
			}
			out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_bw", "-A", "--check", "--format", "csv")
			rows, _ := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil || len(rows) != 2 || rows[1][2] != "Regressed" || rows[1][15] != "Regressed" {
				t.Errorf("--check --format csv (bandwidth, as IOPS): %v\n%s", err, out)
			}
			out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "-A", "--check", "--format", "json")
			var got []struct {
				Points []struct {
					RunUID string `json:"run_uid"`
				} `json:"points"`
				Check *verdictView `json:"check"`
			}
			if err != nil || json.Unmarshal([]byte(out), &got) != nil || len(got) != 1 || got[0].Check == nil ||
				got[0].Check.Verdict != "Regressed" || *got[0].Check.Change > -5 || got[0].Check.Detectable <= 0 {
				t.Fatalf("--check --format json: %v\n%s", err, out)
			}
			// Seen: the change is accepted, the history checked from it on.
			slow := got[0].Points[20].RunUID
			if out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "-A", "--acknowledge", slow[:12], "--note", "new kernel"); err != nil ||
				!strings.Contains(out, "acknowledged: StorageBenchmark perf/fio-nightly randread-4k read_iops") {
				t.Fatalf("--acknowledge: %v\n%s", err, out)
			}
			out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "-A", "--check")
			if err != nil || strings.Contains(out, "Regressed since") || !strings.Contains(out, "verdict at fio-nightly 01234567: too few earlier runs") {
				t.Errorf("--check after --acknowledge: %v\n%s", err, out)
			}
			if _, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "-A", "--acknowledge", "no-such-run"); err == nil ||
				!strings.Contains(err.Error(), "no configuration the query matches has that run") {
				t.Errorf("--acknowledge of no run: %v", err)
			}
		})
	}
}

func TestIndexRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "out.json")
	if err := os.WriteFile(garbage, []byte("{not samples"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := "sqlite://" + filepath.Join(dir, "results.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{garbage}, "--db is needed"},
		{[]string{"--db", db, garbage}, "not a file of samples"},
		{[]string{"--db", db, filepath.Join(dir, "missing")}, "no such file"},
	} {
		_, stderr, err := runCLI(t, append([]string{"index"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("index %v: %v %s, want %q", tc.args, err, stderr, tc.want)
		}
	}
}

// history --check through the manager's artifact server (as through a
// port-forward) says what it says from the database.
func TestHistoryCheckThroughTheManager(t *testing.T) {
	files, _ := nightlyFiles(t)
	db := "sqlite://" + filepath.Join(t.TempDir(), "results.db")
	if _, _, err := runCLI(t, append([]string{"index", "--db", db}, files...)...); err != nil {
		t.Fatal(err)
	}
	direct, _, err := runCLI(t, "history", "--db", db, "--metric", "read_iops", "-A", "--check")
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := resultsdb.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	store, err := artifacts.Open(context.Background(), "file://"+filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(artifactserver.New(store, testr.New(t)).WithHistory(rdb))
	t.Cleanup(srv.Close)
	viaManager, stderr, err := runCLI(t, "history", "--artifact-server", srv.URL, "--metric", "read_iops", "-A", "--check")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if viaManager != direct || !strings.Contains(direct, "Regressed since run fio-nightly ") {
		t.Errorf("through the manager:\n%s\nfrom the database:\n%s", viaManager, direct)
	}
}
