package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
)

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	writeRun(t, dir, "fio-c3", "c3-highcpu-176", 1, 260000, 258000, 262000)
	for _, tc := range []struct{ out, format, want string }{
		{"r.html", "", "<svg"},
		{"r.md", "", "| c3-highcpu-176 speedup vs c2-standard-60 |"},
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

// The report reads each run's series beside its samples (monitor/): one
// that is not a record is said in the section of what the nodes did.
func TestReportReadsTheSeries(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	if err := os.MkdirAll(filepath.Join(dir, "fio-c2", "monitor", "1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fio-c2", "monitor", "1", "local.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "html"} {
		out, _, err := runCLI(t, "report", "--format", format, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "What the nodes did") || !strings.Contains(out, "monitor/1/local.json skipped: not a sampler record") {
			t.Errorf("%s: the series were not read:\n%s", format, out)
		}
	}
}

func TestReportBaselines(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	writeRun(t, dir, "fio-c3", "c3-highcpu-176", 1, 260000, 258000, 262000)
	out, _, err := runCLI(t, "report", "--format", "md", "--baseline", "machine_type=c3-highcpu-176", dir)
	if err != nil || !strings.Contains(out, "### machine_type: c2-standard-60 / c3-highcpu-176") || !strings.Contains(out, "0.385x (2.60x slower)") {
		t.Errorf("--baseline machine_type=c3-highcpu-176: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "report", "--format", "md", "--baseline", "pool=c2", dir); err == nil || !strings.Contains(err.Error(), "the runs have no dimension pool") {
		t.Errorf("--baseline pool=c2 of runs without pools: %v", err)
	}
}

func TestBaselineFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		run  string
		dims map[string]string
		err  string
	}{
		{args: []string{"fio-c2"}, run: "fio-c2"},
		{args: []string{"pool=c2", "benchmark=1pd", "pool=c2"}, dims: map[string]string{"pool": "c2", "benchmark": "1pd"}},
		{args: []string{"x-mode=a=b"}, dims: map[string]string{"x-mode": "a=b"}},
		{args: []string{"fio-c2", "fio-c3"}, err: "one run is the baseline"},
		{args: []string{"pool=c2", "pool=c3"}, err: "one baseline per dimension"},
		{args: []string{"pool="}, err: "want DIMENSION=VALUE"},
	} {
		run, dims, err := baselineFlag(tc.args).parse()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || run != tc.run || !maps.Equal(dims, tc.dims) {
			t.Errorf("%q: %q %v %v", tc.args, run, dims, err)
		}
	}
}

// Stored runs of a campaign (its Workflow and benchmarks gone) are compared
// along the campaign's own dimensions, read from the benchmark labels each
// run's summary.json keeps: a summary without them, garbled, or missing
// leaves its run to its samples' labels.
func TestReportOfStoredCampaignRuns(t *testing.T) {
	dir := t.TempDir()
	cell := func(name, pool, bench string, iops float64) string {
		path := writeRun(t, dir, name, "n2-standard-2", 1, iops, iops, iops)
		summary := fmt.Sprintf(`{"labels": {%q: "wf", %q: %q, %q: "none", %q: %q}}`, benchv1.CampaignLabel,
			campaign.PoolLabel, pool, campaign.TuningLabel, campaign.BenchmarkLabel, bench)
		if err := os.WriteFile(filepath.Join(path, "summary.json"), []byte(summary), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cell("wf-c2-none-1pd", "c2", "1pd", 100000)
	cell("wf-c2-none-10pd", "c2", "10pd", 300000)
	cell("wf-c3-none-1pd", "c3", "1pd", 260000)
	cell("wf-c3-none-10pd", "c3", "10pd", 500000)
	out, _, err := runCLI(t, "report", "--format", "md", "--baseline", "benchmark=1pd", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### benchmark: 10pd / 1pd, per pool", "### pool: c3 / c2, per benchmark", "2.60x"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// Without the campaign's labels, the runs differ in no label: nothing
	// is compared along a dimension.
	for _, name := range []string{"wf-c2-none-1pd", "wf-c2-none-10pd", "wf-c3-none-1pd"} {
		_ = os.Remove(filepath.Join(dir, name, "summary.json"))
	}
	if err := os.WriteFile(filepath.Join(dir, "wf-c3-none-10pd", "summary.json"), []byte(`{"labels": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCLI(t, "report", "--format", "md", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "### pool:") || strings.Contains(out, "### benchmark:") {
		t.Errorf("runs without their campaign's labels are compared along its dimensions:\n%s", out)
	}
}
