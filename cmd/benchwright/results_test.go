package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/results"
)

// runCLI runs the benchwright command with args.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCommand()
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

// writeRun writes a run's samples.ndjson under dir/name, as `benchwright
// run` does: iops per repetition, the first a warm-up.
func writeRun(t *testing.T, dir, name, machine string, iops ...float64) string {
	t.Helper()
	var samples []results.Sample
	for rep, v := range iops {
		s := results.Sample{Kind: "StorageBenchmark", Namespace: "default", Benchmark: name, RunUID: "local-" + name,
			Test: "randread-4k", Metric: "read_iops", Unit: "IOPS", Value: v, Repetition: rep,
			Timestamp: time.Date(2025, 1, 1, 0, 0, rep, 0, time.UTC),
			Labels:    map[string]string{results.LabelMachineType: machine}}
		if rep == 0 {
			s.Labels[results.LabelWarmup] = "true"
		}
		samples = append(samples, s)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := results.WriteNDJSON(&b, samples); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "samples.ndjson"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestResultsCommand(t *testing.T) {
	dir := t.TempDir()
	c2 := writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	out, _, err := runCLI(t, "results", c2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fio-c2 (StorageBenchmark, c2-standard-60, medians over 3 counted repetition(s))",
		"TEST         METRIC      MEDIAN     MIN      MAX    CV  N  UNIT", "randread-4k  read_iops  100,000  98,000  102,000  2.0%  3  IOPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("results output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "results", "--format", "csv", c2)
	if err != nil || !strings.HasPrefix(out, "run,kind,namespace,benchmark,run_uid,machine_type,test,metric,msg_size,unit,") {
		t.Errorf("csv: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "results", "--format", "xml", c2); err == nil || !strings.Contains(err.Error(), `unknown --format "xml"`) {
		t.Errorf("--format xml: %v", err)
	}
}

func TestResultsCommandRejectsRawOutput(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "lat.txt")
	if err := os.WriteFile(raw, []byte("# OSU MPI Latency Test v7.5\n# Size Latency (us)\n8 3.07\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, "results", raw)
	if err == nil || !strings.Contains(err.Error(), "not a samples file") || !strings.Contains(err.Error(), "benchwright parse --tool TOOL") {
		t.Errorf("raw output: %v", err)
	}
}

// The raw log of a multi-process dd step parses into its aggregate and each
// process's figures.
func TestParseDDProcesses(t *testing.T) {
	file := filepath.Join("..", "..", "internal", "fio", "testdata", "dd_gnu9.1_write_4_processes.txt")
	out, _, err := runCLI(t, "parse", "--tool", "dd", "--test", "write-4", "--direction", "write", "--processes", "4", file)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var bytesTotal float64
	perProcess := 0
	for _, s := range samples {
		if s.Metric == "write_bytes" {
			bytesTotal = s.Value
		}
		if s.Metric == "write_bw_process" {
			perProcess++
		}
	}
	if bytesTotal != 4*8<<20 || perProcess != 4 {
		t.Errorf("write_bytes %v, %d per-process bandwidths; want 32 MiB and 4:\n%s", bytesTotal, perProcess, out)
	}
	if _, _, err := runCLI(t, "parse", "--tool", "fio", "--processes", "4", file); err == nil || !strings.Contains(err.Error(), "--processes is for dd") {
		t.Errorf("--processes with fio: %v", err)
	}
}
