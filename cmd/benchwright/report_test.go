package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	writeRun(t, dir, "fio-c3", "c3-highcpu-176", 1, 260000, 258000, 262000)
	for _, tc := range []struct{ out, format, want string }{
		{"r.html", "", "<svg"},
		{"r.md", "", "| fio-c3 (c3-highcpu-176) speedup vs fio-c2 (c2-standard-60) |"},
		{"r.csv", "", "run,kind,namespace,benchmark,run_uid,machine_type,test,metric"},
		{"r.txt", "md", "# C3 vs C2"},
	} {
		path := filepath.Join(t.TempDir(), tc.out)
		args := []string{"report", dir, "-o", path, "--title", "C3 vs C2"}
		if tc.format != "" {
			args = append(args, "--format", tc.format)
		}
		_, stderr, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.out, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tc.want) {
			t.Errorf("%s lacks %q", tc.out, tc.want)
		}
		if !strings.Contains(stderr, "wrote "+path+" (2 run(s))") {
			t.Errorf("stderr %q", stderr)
		}
	}
	out, _, err := runCLI(t, "report", "--format", "md", dir)
	if err != nil || !strings.HasPrefix(out, "# benchwright report\n") {
		t.Errorf("to stdout: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "report", "--format", "pdf", dir); err == nil || !strings.Contains(err.Error(), `unknown --format "pdf"`) {
		t.Errorf("--format pdf: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "r.html")
	if _, _, err := runCLI(t, "report", filepath.Join(dir, "missing"), "-o", bad); err == nil {
		t.Error("a missing input is accepted")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s", bad)
	}
}
