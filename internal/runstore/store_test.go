package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/results"
)

const runPrefix = "hpc/MPIBenchmark/lat/u1/"

var (
	runStarted  = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	runFinished = time.Date(2025, 3, 4, 10, 20, 30, 750_000_000, time.UTC)
	measured    = time.Date(2025, 3, 4, 10, 5, 0, 0, time.UTC)
)

// newRun is a run of MPIBenchmark hpc/lat in a file:// store in a temporary
// directory, and that directory.
func newRun(t *testing.T) (Run, string) {
	t.Helper()
	dir := t.TempDir()
	store, err := artifacts.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatalf("artifacts.Open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return Run{
		Store:    store,
		Location: artifacts.Location{Namespace: "hpc", Kind: "MPIBenchmark", Name: "lat", UID: "u1"},
		Started:  runStarted, Finished: runFinished,
	}, dir
}

// latency is a sample of osu_latency at a message size.
func latency(rep int, attempt, size string, value float64) results.Sample {
	return results.Sample{
		RunUID: "u1", Kind: "MPIBenchmark", Namespace: "hpc", Benchmark: "lat",
		Test: "osu_latency", Metric: "latency", Value: value, Unit: "us", Repetition: rep, Timestamp: measured,
		Labels: map[string]string{results.LabelMsgSize: size, results.LabelAttempt: attempt},
	}
}

// latencySummary is the summary of osu_latency at a size over values.
func latencySummary(size string, values ...float64) results.Summary {
	return results.Summary{
		Test: "osu_latency", Metric: "latency", Unit: "us", Labels: map[string]string{results.LabelMsgSize: size},
		Stats: results.Compute(values), Values: values,
	}
}

func get(t *testing.T, r Run, name string) []byte {
	t.Helper()
	data, err := r.Store.Get(context.Background(), runPrefix+name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return data
}

var groupBySize = results.SummarizeOptions{GroupBy: []string{results.LabelMsgSize}}

// Repetition 0, then 1, then 0 again (a repeated reconcile or a retry): the
// second copy of repetition 0 replaces the first.
func TestAddRepetition(t *testing.T) {
	ctx := context.Background()
	r, _ := newRun(t)
	steps := []struct {
		name    string
		rep     int
		samples []results.Sample
		nodes   []results.NodeInfo
		want    []results.Summary
	}{
		{
			name:    "repetition 0",
			rep:     0,
			samples: []results.Sample{latency(0, "0", "8", 2.0), latency(0, "0", "1024", 30)},
			nodes:   []results.NodeInfo{{Hostname: "gke-a", MachineType: "c2d-standard-112", Zone: "us-central1-a"}},
			want:    []results.Summary{latencySummary("8", 2.0), latencySummary("1024", 30)},
		},
		{
			name:    "repetition 1",
			rep:     1,
			samples: []results.Sample{latency(1, "0", "8", 3.0), latency(1, "0", "1024", 32)},
			nodes: []results.NodeInfo{
				{Hostname: "gke-b", MachineType: "c2d-standard-112", Zone: "us-central1-a"},
				{Hostname: "gke-a", MachineType: "c2d-standard-112", Zone: "us-central1-a", Kernel: "6.1.100+"},
			},
			want: []results.Summary{latencySummary("8", 2.0, 3.0), latencySummary("1024", 30, 32)},
		},
		{
			name:    "repetition 0 again replaces its samples",
			rep:     0,
			samples: []results.Sample{latency(0, "1", "8", 2.5), latency(0, "1", "1024", 31)},
			nodes:   []results.NodeInfo{{Hostname: "gke-c", MachineType: "c2d-standard-112"}},
			want:    []results.Summary{latencySummary("8", 2.5, 3.0), latencySummary("1024", 31, 32)},
		},
	}
	for _, s := range steps {
		got, err := r.AddRepetition(ctx, s.rep, s.samples, s.nodes, groupBySize)
		if err != nil {
			t.Fatalf("%s: AddRepetition: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: summaries (-want +got):\n%s", s.name, diff)
		}
	}
	// The statistics of the last step, spelled out.
	wantStats := results.Stats{N: 2, Median: 2.75, Min: 2.5, Max: 3, Mean: 2.75, Stddev: math.Sqrt(0.125), CV: math.Sqrt(0.125) / 2.75 * 100}
	if diff := cmp.Diff(wantStats, steps[2].want[0].Stats); diff != "" {
		t.Errorf("stats of 8 bytes (-want +got):\n%s", diff)
	}

	t.Run("files", func(t *testing.T) {
		keys, err := r.Store.List(ctx, runPrefix)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{runPrefix + "nodes.json", runPrefix + "samples.csv", runPrefix + "samples.ndjson", runPrefix + "summary.json"}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("stored keys (-want +got):\n%s", diff)
		}
	})
	t.Run("samples.ndjson", func(t *testing.T) {
		got, err := results.ReadNDJSON(bytes.NewReader(get(t, r, "samples.ndjson")))
		if err != nil {
			t.Fatal(err)
		}
		want := []results.Sample{latency(0, "1", "8", 2.5), latency(0, "1", "1024", 31), latency(1, "0", "8", 3.0), latency(1, "0", "1024", 32)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("samples (-want +got):\n%s", diff)
		}
	})
	t.Run("samples.csv", func(t *testing.T) {
		want := "run_uid,kind,namespace,benchmark,test,metric,value,unit,repetition,timestamp,attempt,msg_size\n" +
			"u1,MPIBenchmark,hpc,lat,osu_latency,latency,2.5,us,0,2025-03-04T10:05:00Z,1,8\n" +
			"u1,MPIBenchmark,hpc,lat,osu_latency,latency,31,us,0,2025-03-04T10:05:00Z,1,1024\n" +
			"u1,MPIBenchmark,hpc,lat,osu_latency,latency,3,us,1,2025-03-04T10:05:00Z,0,8\n" +
			"u1,MPIBenchmark,hpc,lat,osu_latency,latency,32,us,1,2025-03-04T10:05:00Z,0,1024\n"
		if diff := cmp.Diff(want, string(get(t, r, "samples.csv"))); diff != "" {
			t.Errorf("samples.csv (-want +got):\n%s", diff)
		}
	})
	wantNodes := []results.NodeInfo{
		{Hostname: "gke-a", MachineType: "c2d-standard-112", Zone: "us-central1-a", Kernel: "6.1.100+"},
		{Hostname: "gke-b", MachineType: "c2d-standard-112", Zone: "us-central1-a"},
		{Hostname: "gke-c", MachineType: "c2d-standard-112"},
	}
	t.Run("nodes.json", func(t *testing.T) {
		want := `[
  {
    "hostname": "gke-a",
    "machine_type": "c2d-standard-112",
    "zone": "us-central1-a",
    "kernel": "6.1.100+"
  },
  {
    "hostname": "gke-b",
    "machine_type": "c2d-standard-112",
    "zone": "us-central1-a"
  },
  {
    "hostname": "gke-c",
    "machine_type": "c2d-standard-112"
  }
]
`
		if diff := cmp.Diff(want, string(get(t, r, "nodes.json"))); diff != "" {
			t.Errorf("nodes.json (-want +got):\n%s", diff)
		}
	})
	t.Run("summary.json", func(t *testing.T) {
		data := get(t, r, "summary.json")
		if !strings.HasSuffix(string(data), "}\n") {
			t.Errorf("summary.json does not end in a newline: %q", data[max(0, len(data)-10):])
		}
		var got results.RunSummary
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		want := results.RunSummary{
			Kind: "MPIBenchmark", Namespace: "hpc", Name: "lat", RunUID: "u1",
			Started: runStarted, Finished: time.Date(2025, 3, 4, 10, 20, 30, 0, time.UTC),
			Nodes:     wantNodes,
			Summaries: []results.Summary{latencySummary("8", 2.5, 3.0), latencySummary("1024", 31, 32)},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("summary.json (-want +got):\n%s", diff)
		}
	})
}

// Repetitions added out of order are stored in repetition order.
func TestAddRepetitionOrder(t *testing.T) {
	ctx := context.Background()
	r, _ := newRun(t)
	for _, rep := range []int{2, 0, 1} {
		if _, err := r.AddRepetition(ctx, rep, []results.Sample{latency(rep, "0", "8", float64(rep+1))}, nil, groupBySize); err != nil {
			t.Fatal(err)
		}
	}
	got, err := results.ReadNDJSON(bytes.NewReader(get(t, r, "samples.ndjson")))
	if err != nil {
		t.Fatal(err)
	}
	want := []results.Sample{latency(0, "0", "8", 1), latency(1, "0", "8", 2), latency(2, "0", "8", 3)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("samples (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("[]\n", string(get(t, r, "nodes.json"))); diff != "" {
		t.Errorf("nodes.json without nodes (-want +got):\n%s", diff)
	}
}

// Warm-up repetitions are stored but not summarized.
func TestAddRepetitionWarmup(t *testing.T) {
	ctx := context.Background()
	r, _ := newRun(t)
	opts := results.SummarizeOptions{WarmupRepetitions: 1, GroupBy: []string{results.LabelMsgSize}}
	got, err := r.AddRepetition(ctx, 0, []results.Sample{latency(0, "0", "8", 9)}, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]results.Summary{}, got); diff != "" {
		t.Errorf("summaries after the warm-up (-want +got):\n%s", diff)
	}
	got, err = r.AddRepetition(ctx, 1, []results.Sample{latency(1, "0", "8", 2)}, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]results.Summary{latencySummary("8", 2)}, got); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}
	stored, err := results.ReadNDJSON(bytes.NewReader(get(t, r, "samples.ndjson")))
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 {
		t.Errorf("stored %d samples, want 2 (the warm-up is kept)", len(stored))
	}
}

// Stored files that cannot be read stop AddRepetition instead of being
// overwritten.
func TestAddRepetitionCorruptStore(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, file, content, wantErr string
	}{
		{"samples", "samples.ndjson", "{not json\n", "reading the stored samples: line 1: "},
		{"nodes", "nodes.json", "{\"hostname\": 1}", "reading the stored nodes.json: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newRun(t)
			if err := r.Store.Put(ctx, runPrefix+tt.file, []byte(tt.content), ""); err != nil {
				t.Fatal(err)
			}
			_, err := r.AddRepetition(ctx, 0, []results.Sample{latency(0, "0", "8", 2)}, nil, groupBySize)
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Fatalf("AddRepetition error %v, want one starting %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.content, string(get(t, r, tt.file))); diff != "" {
				t.Errorf("%s was overwritten (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestPutRawLog(t *testing.T) {
	ctx := context.Background()
	r, _ := newRun(t)
	raw := []byte("==> benchwright step 1/1: mpirun osu_latency <==\n# OSU MPI Latency Test v5.8\n")
	if err := r.PutRawLog(ctx, 2, "lat-r2-launcher-x7k2p", raw); err != nil {
		t.Fatalf("PutRawLog: %v", err)
	}
	if err := r.PutRawLog(ctx, 2, "lat-r2-a1-launcher-q9z8w", []byte("retry\n")); err != nil {
		t.Fatalf("PutRawLog: %v", err)
	}
	keys, err := r.Store.List(ctx, runPrefix)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{runPrefix + "raw/2/lat-r2-a1-launcher-q9z8w.log", runPrefix + "raw/2/lat-r2-launcher-x7k2p.log"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(string(raw), string(get(t, r, "raw/2/lat-r2-launcher-x7k2p.log"))); diff != "" {
		t.Errorf("raw log (-want +got):\n%s", diff)
	}

	for _, bad := range []struct {
		name    string
		rep     int
		pod     string
		wantErr string
	}{
		{"negative repetition", -1, "p", "invalid artifact location: repetition -1 is negative"},
		{"a slash in the pod name", 0, "../p", `invalid artifact location: pod "../p" contains a slash`},
		{"no pod name", 0, "", "invalid artifact location: pod is empty"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			err := r.PutRawLog(ctx, bad.rep, bad.pod, raw)
			if err == nil || err.Error() != bad.wantErr {
				t.Errorf("PutRawLog error %v, want %q", err, bad.wantErr)
			}
		})
	}
}

func TestRunURI(t *testing.T) {
	r, dir := newRun(t)
	if got, want := r.URI(), "file://"+dir+"/hpc/MPIBenchmark/lat/u1/"; got != want {
		t.Errorf("URI = %q, want %q", got, want)
	}
	r.Location.UID = ""
	if got := r.URI(); got != "" {
		t.Errorf("URI of a location without a UID = %q, want \"\"", got)
	}
}

// A manager killed while it uploaded repetition 1 left the file store's
// temporary files of samples.ndjson and samples.csv in the run (named as
// fileblob names them: see artifacts.TestUploadKilledMidway). Storing the
// repetition again, as the next manager does, clears them: the run holds
// its objects and nothing else.
func TestAddRepetitionAfterKilledUpload(t *testing.T) {
	ctx := context.Background()
	r, dir := newRun(t)
	if _, err := r.AddRepetition(ctx, 0, []results.Sample{latency(0, "0", "8", 2.0)}, nil, groupBySize); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, filepath.FromSlash(runPrefix))
	leftovers := []string{"samples.ndjson.18eb8147e5a5b935.tmp", "samples.csv.18eb8144eb2b6d9a.tmp"}
	for _, name := range leftovers {
		if err := os.WriteFile(filepath.Join(runDir, name), []byte(`{"repetition":1`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.AddRepetition(ctx, 1, []results.Sample{latency(1, "0", "8", 3.0)}, nil, groupBySize); err != nil {
		t.Fatal(err)
	}
	for _, name := range leftovers {
		if _, err := os.Stat(filepath.Join(runDir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still in the run after the repetition was stored again (%v)", name, err)
		}
	}
	if got := strings.Count(string(get(t, r, "samples.ndjson")), "\n"); got != 2 {
		t.Errorf("samples.ndjson has %d samples, want 2", got)
	}
}

// nodes.json keeps every repetition's window on a node, not the last one's.
func TestAddRepetitionKeepsWindows(t *testing.T) {
	ctx := context.Background()
	r, _ := newRun(t)
	at := func(s int) time.Time { return time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC) }
	for rep := range 2 {
		node := results.NodeInfo{Hostname: "gke-a", Windows: []results.Window{{Repetition: rep, Start: at(10 * rep), End: at(10*rep + 5)}}}
		if _, err := r.AddRepetition(ctx, rep, []results.Sample{latency(rep, "0", "8", 2.0)}, []results.NodeInfo{node}, groupBySize); err != nil {
			t.Fatal(err)
		}
	}
	nodes, err := r.nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.Window{{Repetition: 0, Start: at(0), End: at(5)}, {Repetition: 1, Start: at(10), End: at(15)}}
	if diff := cmp.Diff(want, nodes["gke-a"].Windows); diff != "" {
		t.Errorf("windows (-want +got):\n%s", diff)
	}
}
