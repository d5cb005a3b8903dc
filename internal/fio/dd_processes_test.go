package fio

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
)

func TestDDArgsProcesses(t *testing.T) {
	args, err := DDArgs(benchv1.DDTest{Name: "w", Operation: benchv1.DDWrite, BlockSize: "1M", Count: 10, OFlag: "direct", Processes: 4}, "/data/0", PodDDExec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/bin/sh", "-c", ddGroupScript, "benchwright-dd", "4", "dd", "/tmp", "of", "/data/0/benchwright-dd.dat",
		"if=/dev/zero", "oflag=direct", "bs=1M", "count=10"}
	if diff := cmp.Diff(want, args); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := DDArgs(benchv1.DDTest{Name: "w", Operation: benchv1.DDWrite, Count: 1, Processes: 257}, "/d", PodDDExec); err == nil {
		t.Error("257 processes accepted")
	}
	// A read with more processes than the write before it needs the missing
	// files prepared, as many as the read has processes.
	tests := []benchv1.DDTest{
		{Name: "w", Operation: benchv1.DDWrite, Count: 1, Processes: 2},
		{Name: "r", Operation: benchv1.DDRead, BlockSize: "1k", Count: 4096, Processes: 8},
		{Name: "r2", Operation: benchv1.DDRead, BlockSize: "1M", Count: 2},
	}
	prep := DDPrepareArgs(tests, "/d", PodDDExec)
	want = []string{"/bin/sh", "-c", ddGroupScript, "benchwright-dd", "8", "dd", "/tmp", "of", "/d/benchwright-dd.dat",
		"if=/dev/zero", "bs=1k", "count=4096", "conv=fsync"}
	if diff := cmp.Diff(want, prep); diff != "" {
		t.Errorf("prepare (-want +got):\n%s", diff)
	}
	tests[0].Processes = 8
	if prep := DDPrepareArgs(tests, "/d", PodDDExec); prep != nil {
		t.Errorf("prepared %v though the write before made every file", prep)
	}
}

// TestDDGroupScriptRealDD runs the group script with real dd and sh: every
// process writes its own file, the reads find them, and a directory name that
// is shell code stays a name.
func TestDDGroupScriptRealDD(t *testing.T) {
	for _, tool := range []string{"dd", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir := filepath.Join(t.TempDir(), "$(touch pwned); `touch pwned2`")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	x := DDExec{DD: "dd", Scratch: t.TempDir()}
	tests := []benchv1.DDTest{
		{Name: "read-first", Operation: benchv1.DDRead, BlockSize: "64k", Count: 8, Processes: 3},
		{Name: "write", Operation: benchv1.DDWrite, BlockSize: "64k", Count: 4, Processes: 3, OFlag: "dsync"},
	}
	run := func(argv []string) []byte {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv[3:], err, out)
		}
		if left, _ := filepath.Glob(filepath.Join(cmd.Dir, "pwned*")); len(left) > 0 {
			t.Fatalf("the directory name ran as shell code: %v", left)
		}
		return out
	}
	run(DDPrepareArgs(tests, dir, x))
	for i, name := range []string{"benchwright-dd.dat", "benchwright-dd.dat.1", "benchwright-dd.dat.2"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Size() != 8*64<<10 {
			t.Fatalf("process %d's file: %v %v", i, st, err)
		}
	}
	for _, tc := range tests {
		argv, err := DDArgs(tc, dir, x)
		if err != nil {
			t.Fatal(err)
		}
		samples, err := DDTestSamples(tc, run(argv))
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]float64{}
		var total, slowest float64
		for _, s := range samples {
			if s.Labels[results.LabelProcesses] != "3" {
				t.Errorf("%s: processes label %q", s.Metric, s.Labels[results.LabelProcesses])
			}
			per[s.Metric] += s.Value
			if s.Metric == string(tc.Operation)+"_seconds_process" {
				slowest = max(slowest, s.Value)
			}
			if s.Metric == string(tc.Operation)+"_bytes_process" {
				total += s.Value
			}
		}
		wantBytes := float64(3 * tc.Count * 64 << 10)
		if per[string(tc.Operation)+"_bytes"] != wantBytes || total != wantBytes {
			t.Errorf("%s: bytes %v, per process together %v, want %v", tc.Name, per[string(tc.Operation)+"_bytes"], total, wantBytes)
		}
		if got := per[string(tc.Operation)+"_seconds"]; got != slowest || got <= 0 {
			t.Errorf("%s: seconds %v, want the slowest process's %v", tc.Name, got, slowest)
		}
	}
}

func TestParseDDProcesses(t *testing.T) {
	data := readInput(t, "dd_gnu9.1_write_4_processes.txt")
	got, err := ParseDDProcesses(data, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d results, want 4", len(got))
	}
	samples, err := DDTestSamples(benchv1.DDTest{Name: "w", Operation: benchv1.DDWrite, BlockSize: "1M", Count: 8, Processes: 4}, data)
	if err != nil {
		t.Fatal(err)
	}
	agg := DDAggregate(got)
	if agg.Bytes != 4*8<<20 {
		t.Errorf("aggregate bytes %d", agg.Bytes)
	}
	for _, r := range got {
		if r.Seconds > agg.Seconds {
			t.Errorf("aggregate time %v shorter than a process's %v", agg.Seconds, r.Seconds)
		}
	}
	if samples[0].Metric != "write_bw" || samples[0].Value != float64(agg.Bytes)/agg.Seconds/(1<<20) {
		t.Errorf("first sample %+v, want the aggregate bandwidth", samples[0])
	}
	var perProcess int
	for _, s := range samples {
		if s.Metric == "write_bw_process" {
			perProcess++
			if s.Labels[LabelProcess] == "" {
				t.Errorf("per-process sample without its process: %+v", s)
			}
		}
	}
	if perProcess != 4 {
		t.Errorf("%d per-process bandwidths, want 4", perProcess)
	}

	bad := []struct {
		name, data string
		n          int
		ddErr      bool
	}{
		{"one missing", "==> benchwright dd process 0 <==\n1 bytes copied, 1 s, 1 B/s\n", 2, false},
		{"out of order", "==> benchwright dd process 1 <==\n1 bytes copied, 1 s, 1 B/s\n==> benchwright dd process 0 <==\n", 2, false},
		{"more than asked", "==> benchwright dd process 0 <==\n1 bytes copied, 1 s, 1 B/s\n==> benchwright dd process 1 <==\n1 bytes copied, 1 s, 1 B/s\n", 1, false},
		{"a process without summary", "==> benchwright dd process 0 <==\n1 bytes copied, 1 s, 1 B/s\n==> benchwright dd process 1 <==\n", 2, false},
		{"a process failed", "==> benchwright dd process 0 <==\n1 bytes copied, 1 s, 1 B/s\n==> benchwright dd process 1 <==\ndd: error writing '/data/0/x.1': No space left on device\n1 bytes copied, 1 s, 1 B/s\n", 2, true},
		{"overflow", "==> benchwright dd process 0 <==\n9223372036854775807 bytes copied, 1 s, 1 B/s\n==> benchwright dd process 1 <==\n9 bytes copied, 1 s, 1 B/s\n", 2, false},
	}
	for _, tc := range bad {
		_, err := ParseDDProcesses([]byte(tc.data), tc.n)
		var ddErr *DDError
		if err == nil || errors.As(err, &ddErr) != tc.ddErr {
			t.Errorf("%s: error %v, want one (a dd diagnostic: %v)", tc.name, err, tc.ddErr)
		}
		if tc.ddErr && !strings.Contains(err.Error(), "process 1") {
			t.Errorf("%s: %v does not name the process", tc.name, err)
		}
	}
}
