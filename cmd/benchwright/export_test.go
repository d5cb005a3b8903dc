package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/bqexport"
)

func TestExportBigQuery(t *testing.T) {
	db := historyDB(t)
	out := filepath.Join(t.TempDir(), "export")
	stdout, stderr, err := runCLI(t, "export", "--format", "bigquery", "--db", db, "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Logf("benchwright export:\n%s", stdout)
	samples, schema := filepath.Join(out, "samples.ndjson"), filepath.Join(out, "schema.json")
	for _, want := range []string{
		"Wrote 12 samples of 4 runs to " + samples,
		"bq load --source_format=NEWLINE_DELIMITED_JSON DATASET.TABLE " + samples + " " + schema + "\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	rows := readRows(t, samples)
	if len(rows) != 12 || rows[0]["run_uid"] != "0b6c0000-aaaa-bbbb-cccc-dddddddddddd" || rows[0]["finished"] != "2026-11-20 02:10:00.000000 UTC" ||
		rows[0]["value"] != 88000.0 || rows[0]["benchmark"] != "fio-nightly" {
		t.Errorf("%d rows, the first %v", len(rows), rows[0])
	}
	var want bytes.Buffer
	if err := bqexport.WriteSchema(&want); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(schema); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("schema.json (%v):\n%s", err, got)
	}
	if fi, err := os.Stat(samples); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("samples.ndjson: %v, %v", fi, err)
	}
	// Narrowed: runs since a day, of a kind, of a namespace.
	for _, tc := range []struct {
		args []string
		rows int
	}{
		{[]string{"--since", "2026-11-22"}, 6},
		{[]string{"--kind", "MPIBenchmark"}, 0},
		{[]string{"--run-namespace", "perf", "--kind", "StorageBenchmark"}, 12},
		{[]string{"--run-namespace", "elsewhere"}, 0},
	} {
		if _, stderr, err := runCLI(t, append([]string{"export", "--db", db, "--out", out}, tc.args...)...); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, stderr)
		}
		if rows := readRows(t, samples); len(rows) != tc.rows {
			t.Errorf("%v: %d rows, want %d", tc.args, len(rows), tc.rows)
		}
	}
}

// An export that fails leaves the files of the one before, and no
// temporary file.
func TestAFailedExportLeavesTheLastOne(t *testing.T) {
	db := historyDB(t)
	out := t.TempDir()
	if _, stderr, err := runCLI(t, "export", "--db", db, "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, "samples.ndjson"))
	// The last run's labels are not JSON: the export fails there, with the
	// first three runs' rows written.
	raw, err := sql.Open("sqlite", strings.TrimPrefix(db, "sqlite://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE samples SET labels = 'not json' WHERE run_uid = '0b6c0003-aaaa-bbbb-cccc-dddddddddddd'`); err != nil {
		t.Fatal(err)
	}
	_ = raw.Close()
	_, _, err = runCLI(t, "export", "--db", db, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("exporting a broken database: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(out, "samples.ndjson"))
	if !bytes.Equal(before, after) {
		t.Error("the failed export changed samples.ndjson")
	}
	if entries, _ := os.ReadDir(out); len(entries) != 2 {
		t.Errorf("%d files in the export's directory, want samples.ndjson and schema.json", len(entries))
	}
}

func TestExportRefusesBadFlags(t *testing.T) {
	db := historyDB(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", t.TempDir()}, `required flag(s) "db" not set`},
		{[]string{"--db", db}, `required flag(s) "out" not set`},
		{[]string{"--db", db, "--out", t.TempDir(), "--format", "csv"}, `--format "csv": want bigquery`},
		{[]string{"--db", db, "--out", t.TempDir(), "--since", "last week"}, "--since"},
		{[]string{"--db", "mysql://h/db", "--out", t.TempDir()}, `scheme "mysql"`},
	} {
		_, stderr, err := runCLI(t, append([]string{"export"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("export %v: %v %s, want %q", tc.args, err, stderr, tc.want)
		}
	}
}

func readRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		rows = append(rows, row)
	}
	return rows
}
