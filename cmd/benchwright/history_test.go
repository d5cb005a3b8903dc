package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

// historyDB is a SQLite results database holding three nightly runs of a
// fio benchmark on c3 (the last 10 % slower) and one on c2.
func historyDB(t *testing.T) string {
	t.Helper()
	url := "sqlite://" + filepath.Join(t.TempDir(), "results.db")
	db, err := resultsdb.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	night := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	for i, r := range []struct {
		machine string
		values  []float64
	}{
		{"c3-standard-8", []float64{88000, 89000, 87000}},
		{"c3-standard-8", []float64{88500, 88000, 89500}},
		{"c3-standard-8", []float64{79000, 80000, 79500}},
		{"c2-standard-8", []float64{34000, 34500, 33800}},
	} {
		uid := fmt.Sprintf("0b6c%04d-aaaa-bbbb-cccc-dddddddddddd", i)
		var samples []results.Sample
		for rep, v := range r.values {
			samples = append(samples, results.Sample{Test: "randread-4k", Metric: "read_iops", Unit: "IOPS", Value: v, Repetition: rep,
				Labels: map[string]string{results.LabelMachineType: r.machine, results.LabelNode: "n1"}})
		}
		run := resultsdb.Run{UID: uid, Kind: "StorageBenchmark", Namespace: "perf", Name: "fio-nightly", Started: night.AddDate(0, 0, i),
			Finished: night.AddDate(0, 0, i).Add(10 * time.Minute), Location: "perf/StorageBenchmark/fio-nightly/" + uid + "/"}
		if _, err := db.Index(context.Background(), run, resultsdb.SamplesOf(samples)); err != nil {
			t.Fatal(err)
		}
	}
	return url
}

func TestHistoryFromADatabase(t *testing.T) {
	db := historyDB(t)
	out, stderr, err := runCLI(t, "history", "--db", db, "--metric", "read_iops", "-l", "machine_type=c3-standard-8")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Logf("benchwright history:\n%s", out)
	for _, want := range []string{
		"StorageBenchmark perf/fio-nightly randread-4k read_iops (machine_type=c3-standard-8), in IOPS",
		"2026-11-20 02:10  fio-nightly 0b6c0000  3     88,000  87,000  89,000  -",
		"+0.6%", "-10.2%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Contains(out, "c2-standard-8") {
		t.Error("-l machine_type=c3-standard-8 printed c2's runs")
	}
	out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "--format", "json", "--runs", "2", "-n", "perf")
	var hs []resultsdb.History
	if err != nil || json.Unmarshal([]byte(out), &hs) != nil || len(hs) != 2 || len(hs[1].Points) != 2 || hs[1].Points[1].Median != 79500 {
		t.Errorf("--format json --runs 2: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "--format", "csv", "--since", "2026-11-22")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); err != nil || len(lines) != 3 || !strings.HasPrefix(lines[0], "configuration,kind,namespace") {
		t.Errorf("--format csv --since 2026-11-22: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "-n", "elsewhere")
	if err != nil || !strings.Contains(out, "No runs match") {
		t.Errorf("no match: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "history", "--db", db, "--metric", "read_iops", "--identity-label", "node", "-l", "machine_type=c2-standard-8")
	if err != nil || !strings.Contains(out, "node=n1") {
		t.Errorf("--identity-label node: %v\n%s", err, out)
	}
}

func TestHistoryRefusesBadFlags(t *testing.T) {
	db := historyDB(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--db", db}, `required flag(s) "metric" not set`},
		{[]string{"--db", db, "--metric", "x", "-l", "machine_type!=c3"}, "only equality"},
		{[]string{"--db", db, "--metric", "x", "--since", "last week"}, "--since"},
		{[]string{"--db", db, "--metric", "x", "--format", "yaml"}, `--format "yaml"`},
		{[]string{"--db", "mysql://h/db", "--metric", "x"}, `scheme "mysql"`},
	} {
		_, stderr, err := runCLI(t, append([]string{"history"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("history %v: %v %s, want %q", tc.args, err, stderr, tc.want)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"720h":                 now.Add(-720 * time.Hour),
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01T06:00:00Z": time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1h", "yesterday", "2026-13-01"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}
