package resultsdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// storedRun writes a run the way the manager does: its repetitions through
// runstore, and outcome.json when succeeded.
func storedRun(t *testing.T, store *artifacts.Store, loc artifacts.Location, labels map[string]string, succeeded bool, values ...float64) {
	t.Helper()
	ctx := context.Background()
	run := runstore.Run{Store: store, Location: loc, Started: t0, Finished: t0.Add(time.Hour), Labels: labels}
	for rep, v := range values {
		s := []results.Sample{{RunUID: loc.UID, Kind: loc.Kind, Namespace: loc.Namespace, Benchmark: loc.Name, Test: "randread-4k",
			Metric: "read_iops", Unit: "IOPS", Value: v, Repetition: rep,
			Labels: map[string]string{results.LabelMachineType: "c3-standard-8", results.LabelPool: "gen-" + loc.UID}}}
		if _, err := run.AddRepetition(ctx, rep, s, nil, results.SummarizeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if succeeded {
		if err := run.PutSucceeded(ctx, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBackfill(t *testing.T) {
	ctx := context.Background()
	store, err := artifacts.Open(ctx, "file://"+filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	loc := func(name, uid string) artifacts.Location {
		return artifacts.Location{Namespace: "perf", Kind: "StorageBenchmark", Name: name, UID: uid}
	}
	storedRun(t, store, loc("fio", "u1"), nil, true, 100, 110)
	cell := map[string]string{benchv1.CampaignLabel: "s0-abcde", campaign.PoolLabel: "c3", campaign.TuningLabel: "none", campaign.BenchmarkLabel: "fio"}
	storedRun(t, store, loc("s0-abcde-c3-none-fio", "u2"), cell, true, 120)
	storedRun(t, store, loc("fio", "u3"), nil, false, 130) // running, or failed
	// A summary that claims another run's UID, and one that is not JSON.
	storedRun(t, store, loc("fio", "u4"), nil, true, 140)
	if err := store.Put(ctx, "perf/StorageBenchmark/fio/u4/summary.json", []byte(`{"kind":"StorageBenchmark","namespace":"perf","name":"fio","run_uid":"u1"}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	storedRun(t, store, loc("fio", "u5"), nil, true, 150)
	if err := store.Put(ctx, "perf/StorageBenchmark/fio/u5/summary.json", []byte("\x00garbage"), "application/json"); err != nil {
		t.Fatal(err)
	}
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		res, err := Backfill(ctx, db, store)
		if err != nil {
			t.Fatal(err)
		}
		if res.Indexed != 2 || res.Unfinished != 1 || res.Failed != 2 || res.Known != 0 || len(res.Errors) != 2 {
			t.Errorf("first backfill: %+v", res)
		}
		if !strings.Contains(res.Errors[0].Error(), "not the run of its place") {
			t.Errorf("a summary of another run: %v", res.Errors[0])
		}
		res, err = Backfill(ctx, db, store)
		if err != nil || res.Indexed != 0 || res.Known != 2 {
			t.Errorf("second backfill: %+v, %v; want the two runs known", res, err)
		}
		hs, err := db.History(ctx, Query{Metric: "read_iops"})
		if err != nil {
			t.Fatal(err)
		}
		// The campaign's cell and the plain run are one series, "fio", but
		// not one configuration: the cell's pool is the campaign's "c3", the
		// plain run's its own pool.
		if len(hs) != 2 {
			t.Fatalf("%d configurations: %+v", len(hs), hs)
		}
		for _, h := range hs {
			if h.Config.Series != "fio" || len(h.Points) != 1 {
				t.Errorf("%s: %d points", h.Config, len(h.Points))
			}
			if p := h.Points[0]; p.RunUID == "u2" && (h.Config.Pool != "c3" || h.Config.Tuning != "none" || p.Campaign != "s0-abcde") {
				t.Errorf("the campaign's cell: %+v %+v", h.Config, p)
			}
			if p := h.Points[0]; p.RunUID == "u1" && (h.Config.Pool != "gen-u1" || p.Median != 105) {
				t.Errorf("the plain run: %+v %+v", h.Config, p)
			}
		}
		if _, err := IndexStored(ctx, db, store, "perf/StorageBenchmark/fio/u3/"); err == nil || !strings.Contains(err.Error(), "no outcome.json") {
			t.Errorf("indexing a run that has not succeeded: %v", err)
		}
	})
}
