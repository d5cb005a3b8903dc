package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
	"github.com/benchwright/benchwright/test/wrappers"
)

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI installs it", name)
		}
		t.Skipf("%s is not installed (hack/ensure-tools.sh %s)", name, name)
	}
}

func i32(v int32) *int32 { return &v }

func smallFioBench() *benchv1.StorageBenchmark {
	return wrappers.MakeStorageBenchmark("small", "").Label(benchv1.CampaignLabel, "test").Label(benchv1.AxisLabelPrefix+"disks", "2").
		Repetitions(3).WarmupRepetitions(1).EmptyDir("", "").VolumeCount(2).
		Fio(benchv1.FioSpec{Size: "8M", Runtime: &metav1.Duration{Duration: time.Second}, Jobs: []benchv1.FioJob{
			{Name: "randread-4k", RW: "randread", IODepth: i32(4)},
			{Name: "write-64k", RW: "write", BlockSize: "64k", IOEngine: "psync"},
		}}).Obj()
}

// TestRunStorageWithRealFio runs real fio and checks that every figure in the
// result files is one fio printed in its own output for that repetition.
func TestRunStorageWithRealFio(t *testing.T) {
	needTool(t, "fio")
	dir := t.TempDir()
	var progress bytes.Buffer
	res, err := RunStorage(context.Background(), smallFioBench(), Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results"), Progress: &progress})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	for _, f := range []string{"samples.ndjson", "samples.csv", "summary.json", "nodes.json", "raw/0/fio.json", "raw/2/job.fio"} {
		if _, err := os.Stat(filepath.Join(res.Dir, f)); err != nil {
			t.Errorf("missing result file: %v", err)
		}
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "samples.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Every sample equals the figure fio printed in that repetition's output.
	for rep := 0; rep < 3; rep++ {
		raw, err := os.ReadFile(filepath.Join(res.Dir, "raw", strconv.Itoa(rep), "fio.json"))
		if err != nil {
			t.Fatal(err)
		}
		own, err := fio.ParseJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, s := range own {
			want[s.Test+"/"+s.Metric] = s.Value
		}
		n := 0
		monitored := map[string]bool{}
		for _, s := range samples {
			if s.Repetition != rep {
				continue
			}
			if s.Labels[sampler.LabelSource] == sampler.SourceValue {
				// The machine's series, summarised per job.
				monitored[s.Test+"/"+s.Metric] = true
				continue
			}
			n++
			if v, ok := want[s.Test+"/"+s.Metric]; !ok || v != s.Value {
				t.Errorf("rep %d %s/%s = %v, fio printed %v (present %v)", rep, s.Test, s.Metric, s.Value, v, ok)
			}
			if s.RunUID != res.RunUID || s.Benchmark != "small" || s.Labels[results.LabelCampaign] != "test" || s.Labels["x-disks"] != "2" {
				t.Errorf("sample not labelled (campaign test, axis x-disks 2): %+v", s)
			}
			if mhz, err := strconv.ParseFloat(s.Labels[results.LabelCPUMHz], 64); err != nil || mhz <= 0 {
				t.Errorf("rep %d: cpu_mhz label %q, want this machine's frequency", rep, s.Labels[results.LabelCPUMHz])
			}
			if (rep == 0) != (s.Labels[results.LabelWarmup] == "true") {
				t.Errorf("rep %d warmup label = %q", rep, s.Labels[results.LabelWarmup])
			}
		}
		if n != len(own) {
			t.Errorf("rep %d: %d samples stored, fio's output has %d", rep, n, len(own))
		}
		for _, job := range []string{"randread-4k", "write-64k"} {
			if !monitored[job+"/"+sampler.MetricCPUUtil] || !monitored[job+"/"+sampler.MetricDiskIOPS] {
				t.Errorf("rep %d: no CPU or disk summary of the machine's series for job %s: %v", rep, job, monitored)
			}
		}
		if _, err := os.Stat(filepath.Join(res.Dir, "monitor", strconv.Itoa(rep), "local.json")); err != nil {
			t.Errorf("rep %d: the machine's series: %v", rep, err)
		}
	}
	nodesJSON, err := os.ReadFile(filepath.Join(res.Dir, "nodes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var nodes []results.NodeInfo
	if err := json.Unmarshal(nodesJSON, &nodes); err != nil || len(nodes) != 1 {
		t.Fatalf("nodes.json: %v\n%s", err, nodesJSON)
	}
	if f := nodes[0].Facts; f == nil || f.CPUMHz <= 0 || f.Network != "host" || f.SELinux == "" || nodes[0].FirewallRules == "" {
		t.Errorf("nodes.json lacks this machine's facts:\n%s", nodesJSON)
	}
	var iops *results.Summary
	for i := range res.Summaries {
		if res.Summaries[i].Test == "randread-4k" && res.Summaries[i].Metric == "read_iops" {
			iops = &res.Summaries[i]
		}
	}
	if iops == nil || iops.Stats.N != 2 || iops.Stats.Median <= 0 {
		t.Fatalf("randread read_iops summary over the 2 counted repetitions: %+v", iops)
	}
	var table bytes.Buffer
	if err := PrintTable(&table, res.Summaries); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "randread-4k") || !strings.Contains(table.String(), "write_bw") {
		t.Errorf("table lacks the jobs:\n%s", table.String())
	}
	if !strings.Contains(progress.String(), "repetition 3/3") {
		t.Errorf("no progress shown:\n%s", progress.String())
	}
}

func TestRunStorageReportsToolFailureWithTail(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fio")
	script := "#!/bin/sh\necho 'fio: pid=42, err=5/file:io_u.c:1889, func=io_u error, error=Input/output error' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := RunStorage(context.Background(), smallFioBench(), Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "r"), FioPath: fake})
	if err == nil || !strings.Contains(err.Error(), "fio failed") || !strings.Contains(err.Error(), "Input/output error") {
		t.Fatalf("got %v, want fio's failure with the log tail", err)
	}
}

func TestRunStorageRejectsTruncatedOutput(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fio")
	// Writes half a JSON document to --output and exits 0.
	script := "#!/bin/sh\nfor a; do case $a in --output=*) printf '{\"fio version\" : \"fio-3.33\", \"jobs\" : [ { \"jobname\" : \"randread-4k\", \"read\" : {' > \"${a#--output=}\";; esac; done\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := RunStorage(context.Background(), smallFioBench(), Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "r"), FioPath: fake})
	if err == nil || !strings.Contains(err.Error(), "parsing fio's output") {
		t.Fatalf("got %v, want a parse error", err)
	}
	if res != nil && len(res.Samples) != 0 {
		t.Errorf("samples reported from truncated output: %v", res.Samples)
	}
}

func TestRunStorageDDWithRealDD(t *testing.T) {
	needTool(t, "dd")
	dir := t.TempDir()
	b := wrappers.MakeStorageBenchmark("dd", "").Repetitions(2).EmptyDir("", "").DD(
		benchv1.DDTest{Name: "write-dsync", Operation: benchv1.DDWrite, BlockSize: "1M", Count: 4, OFlag: "dsync"},
		benchv1.DDTest{Name: "read-buffered", Operation: benchv1.DDRead, BlockSize: "1M", Count: 4},
		// More processes than the write made files: dd-prepare makes the rest.
		benchv1.DDTest{Name: "read-4", Operation: benchv1.DDRead, BlockSize: "1M", Count: 2, Processes: 4},
	).Obj()
	res, err := RunStorage(context.Background(), b, Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "r")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range res.Summaries {
		got[s.Test+"/"+s.Metric] = s.Stats.N == 2 && s.Stats.Median > 0
	}
	for _, k := range []string{"write-dsync/write_bw", "read-buffered/read_bw", "write-dsync/write_bytes", "read-4/read_bw", "read-4/read_bw_process"} {
		if !got[k] {
			t.Errorf("no summary over 2 repetitions for %s (have %v)", k, got)
		}
	}
	for _, s := range res.Summaries {
		if s.Test == "read-4" && s.Metric == "read_bytes" && s.Stats.Median != 4*2<<20 {
			t.Errorf("read-4 read %v bytes, want 4 processes x 2 MiB", s.Stats.Median)
		}
	}
}

// A run stopped by a signal (its context cancelled) says "interrupted", not
// that fio failed, and leaves neither its scratch directory nor samples.
func TestRunStorageInterrupted(t *testing.T) {
	needTool(t, "fio")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	progress := &cancelOnWrite{after: "repetition 2/3", cancel: cancel}
	_, err := RunStorage(ctx, smallFioBench(), Options{WorkDir: dir, ResultsDir: filepath.Join(dir, "results"), Progress: progress})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "repetition 2/3") || strings.Contains(err.Error(), "fio failed") {
		t.Fatalf("error %v, want interrupted in repetition 2/3", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "benchwright-*"))
	if _, serr := os.Stat(filepath.Join(dir, "results", "small", "samples.ndjson")); len(left) > 0 || serr == nil {
		t.Errorf("left behind: scratch %v, samples written: %v", left, serr == nil)
	}
}

// cancelOnWrite cancels once a progress line holds after.
type cancelOnWrite struct {
	after  string
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.after) {
		go func() { time.Sleep(300 * time.Millisecond); c.cancel() }()
	}
	return len(p), nil
}
