package compare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// Each run's labels come from the summary.json beside its samples, in a
// store and in a directory alike; a summary that is missing, garbled, far
// too large or without labels gives none.
func TestRunLabels(t *testing.T) {
	ctx := context.Background()
	storeDir := t.TempDir()
	store, err := artifacts.Open(ctx, "file://"+storeDir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(name, summary string) {
		loc := artifacts.Location{Namespace: "perf", Kind: "StorageBenchmark", Name: name, UID: "u-" + name}
		key, _ := loc.SamplesNDJSON()
		var nd strings.Builder
		if err := results.WriteNDJSON(&nd, []results.Sample{{RunUID: "u-" + name, Kind: "StorageBenchmark", Namespace: "perf", Benchmark: name,
			Test: "randread", Metric: "read_iops", Value: 1000, Unit: "IOPS"}}); err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, key, []byte(nd.String()), "application/x-ndjson"); err != nil {
			t.Fatal(err)
		}
		if summary != "" {
			sk, _ := loc.Summary()
			if err := store.Put(ctx, sk, []byte(summary), "application/json"); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("a", `{"labels": {"benchwright.io/campaign-pool": "c2"}}`)
	put("b", `{"labels": `)
	put("c", "")
	put("d", `{"figures": []}`)
	put("e", `{"labels": {"x": "`+strings.Repeat("y", source.MaxSummaryBytes)+`"}}`)
	_ = store.Close()

	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "f"), 0o755); err != nil {
		t.Fatal(err)
	}
	nd := `{"run_uid":"u-f","kind":"StorageBenchmark","namespace":"perf","benchmark":"f","test":"randread","metric":"read_iops","value":1,"unit":"IOPS"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "f", source.SamplesFile), []byte(nd), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f", source.SummaryFile), []byte(`{"labels": {"benchwright.io/campaign-pool": "c3"}}`), 0o644); err != nil {
		t.Fatal(err)
	}

	src := source.Sources([]string{"file://" + storeDir, dir})
	runs, err := Load(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	labels, err := RunLabels(ctx, src, runs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, l := range labels {
		got[runs[i].Name] = l["benchwright.io/campaign-pool"]
	}
	if len(got) != 2 || got["a"] != "c2" || got["f"] != "c3" {
		t.Errorf("labels by run %v, want a's c2 (store) and f's c3 (directory) only", got)
	}
}
