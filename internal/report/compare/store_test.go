package compare

import (
	"context"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// Runs read from an artifact store by URL, as `benchwright report gs://…`
// does, next to local files.
func TestStoreRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := artifacts.Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c2", "c3"} {
		loc := artifacts.Location{Namespace: "perf", Kind: "StorageBenchmark", Name: name, UID: "u-" + name}
		key, _ := loc.SamplesNDJSON()
		var nd strings.Builder
		if err := results.WriteNDJSON(&nd, []results.Sample{{RunUID: "u-" + name, Kind: "StorageBenchmark", Namespace: "perf", Benchmark: name,
			Test: "randread", Metric: "read_iops", Value: map[string]float64{"c2": 100000, "c3": 260000}[name], Unit: "IOPS"}}); err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, key, []byte(nd.String()), "application/x-ndjson"); err != nil {
			t.Fatal(err)
		}
	}
	_ = store.Close()
	runs, err := Load(ctx, source.Sources([]string{"file://" + dir}))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	rows, err := Compare(runs, 0, false)
	if err != nil || len(rows) == 0 {
		t.Fatalf("compare: %v %v", rows, err)
	}
	if _, err := Load(ctx, source.Sources([]string{"file://" + t.TempDir()})); err == nil || !strings.Contains(err.Error(), "holds no run") {
		t.Errorf("empty store: %v", err)
	}
}
