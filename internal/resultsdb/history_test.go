package resultsdb

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/benchwright/benchwright/internal/results"
)

var t0 = time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)

// fioRun is a StorageBenchmark run finished day days after t0, with one
// read_iops sample per value (a repetition each) carrying labels.
func fioRun(uid, name string, day int, labels map[string]string, values ...float64) (Run, []results.Sample) {
	run := Run{UID: uid, Kind: "StorageBenchmark", Namespace: "team-a", Name: name,
		Started: t0.AddDate(0, 0, day).Add(-time.Hour), Finished: t0.AddDate(0, 0, day),
		Location: "team-a/StorageBenchmark/" + name + "/" + uid + "/"}
	var out []results.Sample
	for i, v := range values {
		l := maps.Clone(labels)
		l[results.LabelNode] = fmt.Sprintf("node-%d", i%2)
		out = append(out, results.Sample{RunUID: uid, Kind: run.Kind, Namespace: run.Namespace, Benchmark: name,
			Test: "randread-4k", Metric: "read_iops", Value: v, Unit: "IOPS", Repetition: i,
			Timestamp: run.Finished, Labels: l},
			results.Sample{RunUID: uid, Test: "randread-4k", Metric: "read_bw", Value: v * 4096, Unit: "B/s", Repetition: i, Labels: l})
	}
	return run, out
}

func source(samples []results.Sample) SampleSource {
	return func(add func(results.Sample) error) error {
		for _, s := range samples {
			if err := add(s); err != nil {
				return err
			}
		}
		return nil
	}
}

func index(t *testing.T, db *DB, run Run, samples []results.Sample) bool {
	t.Helper()
	added, err := db.Index(context.Background(), run, source(samples))
	if err != nil {
		t.Fatal(err)
	}
	return added
}

func TestIndexAddsARunOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		run, samples := fioRun("uid-1", "fio", 0, map[string]string{results.LabelMachineType: "c3-standard-8"}, 1000, 1100, 1050)
		if !index(t, db, run, samples) {
			t.Fatal("the first Index added nothing")
		}
		if index(t, db, run, samples) {
			t.Error("the second Index added the run again")
		}
		// Many at once (the manager and a backfill): one adds it.
		other, more := fioRun("uid-2", "fio", 1, map[string]string{results.LabelMachineType: "c3-standard-8"}, 900, 950)
		var wg sync.WaitGroup
		var adds, fails int
		var mu sync.Mutex
		for range 6 {
			wg.Go(func() {
				added, err := db.Index(context.Background(), other, source(more))
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					fails++
					t.Log(err)
				}
				if added {
					adds++
				}
			})
		}
		wg.Wait()
		if adds != 1 || fails != 0 {
			t.Errorf("6 concurrent Index calls: %d added, %d failed; want 1 and 0", adds, fails)
		}
		var n int
		if err := db.sql.QueryRow(`SELECT COUNT(*) FROM samples`).Scan(&n); err != nil || n != len(samples)+len(more) {
			t.Errorf("%d samples stored (%v), want %d", n, err, len(samples)+len(more))
		}
		// A run whose samples cannot be read leaves nothing behind.
		bad, _ := fioRun("uid-3", "fio", 2, map[string]string{})
		_, err := db.Index(context.Background(), bad, func(add func(results.Sample) error) error {
			_ = add(results.Sample{Test: "t", Metric: "m", Unit: "u"})
			return fmt.Errorf("the store went away")
		})
		if has, _ := db.Has(context.Background(), "uid-3"); err == nil || has {
			t.Errorf("a run whose samples failed: err %v, indexed %v", err, has)
		}
		if err := db.Forget(context.Background(), "uid-1"); err != nil {
			t.Fatal(err)
		}
		if has, _ := db.Has(context.Background(), "uid-1"); has {
			t.Error("Forget left the run")
		}
	})
}

func TestHistoryGroupsByConfiguration(t *testing.T) {
	c3 := map[string]string{results.LabelMachineType: "c3-standard-8"}
	c2 := map[string]string{results.LabelMachineType: "c2-standard-8"}
	runs := []struct {
		run     Run
		samples []results.Sample
	}{}
	add := func(r Run, s []results.Sample) {
		runs = append(runs, struct {
			run     Run
			samples []results.Sample
		}{r, s})
	}
	add(fioRun("r1", "fio", 0, c3, 1000, 1010, 990))
	add(fioRun("r2", "fio", 1, c3, 1020, 1000))
	add(fioRun("r3", "fio", 2, c2, 400, 410, 405))
	// A campaign's cell: generated names, the campaign's own in Series/Pool.
	r4, s4 := fioRun("r4", "s0-x7k2p-c3-none-fio", 3, c3, 930, 940, 920)
	r4.Series, r4.Pool, r4.Tuning = "fio", "", ""
	add(r4, s4)
	// A warm-up repetition does not count.
	r5, s5 := fioRun("r5", "fio", 4, c3, 1, 1005, 1015)
	s5[0].Labels = maps.Clone(s5[0].Labels)
	s5[0].Labels[results.LabelWarmup] = "true"
	add(r5, s5)
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		for _, r := range runs {
			index(t, db, r.run, r.samples)
		}
		ctx := context.Background()
		hs, err := db.History(ctx, Query{Metric: "read_iops"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float64{}
		for _, h := range hs {
			for _, p := range h.Points {
				got[h.Config.Labels[results.LabelMachineType]] = append(got[h.Config.Labels[results.LabelMachineType]], p.Median)
			}
		}
		want := map[string][]float64{"c3-standard-8": {1000, 1010, 930, 1010}, "c2-standard-8": {405}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("medians per machine type %v, want %v", got, want)
		}
		if len(hs) != 2 || hs[1].Config.String() != "StorageBenchmark team-a/fio randread-4k read_iops (machine_type=c3-standard-8)" {
			t.Errorf("configurations: %v", hs)
		}
		last := hs[1].Points[3]
		if last.RunUID != "r5" || last.N != 2 || last.Min != 1005 || last.Max != 1015 || !last.Finished.Equal(t0.AddDate(0, 0, 4)) {
			t.Errorf("the newest point %+v", last)
		}
		// Narrowing: the newest runs, since a day, a label, a test.
		for _, tc := range []struct {
			q    Query
			runs []string
		}{
			{Query{Metric: "read_iops", Runs: 2, Labels: c3}, []string{"r4", "r5"}},
			{Query{Metric: "read_iops", Since: t0.AddDate(0, 0, 2), Labels: c3}, []string{"r4", "r5"}},
			{Query{Metric: "read_iops", Labels: map[string]string{results.LabelMachineType: "c2-standard-8"}}, []string{"r3"}},
			{Query{Metric: "read_iops", Test: "seqread", Labels: c3}, nil},
			{Query{Metric: "read_iops", Series: "fio", Kind: "StorageBenchmark", Namespace: "team-a", Labels: c3}, []string{"r1", "r2", "r4", "r5"}},
		} {
			hs, err := db.History(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var uids []string
			for _, h := range hs {
				for _, p := range h.Points {
					uids = append(uids, p.RunUID)
				}
			}
			if !reflect.DeepEqual(uids, tc.runs) {
				t.Errorf("%+v: runs %v, want %v", tc.q, uids, tc.runs)
			}
		}
		// A user's identity label splits the configuration by node.
		hs, err = db.History(ctx, Query{Metric: "read_iops", Labels: c3, Identity: Identity{Extra: []string{results.LabelNode}}})
		if err != nil || len(hs) != 2 {
			t.Fatalf("by node: %d configurations (%v), want 2", len(hs), err)
		}
		if _, err := db.History(ctx, Query{}); err == nil {
			t.Error("a history without a metric")
		}
	})
}

// The same runs give the same histories on both engines, to the last field.
func TestEnginesAgree(t *testing.T) {
	got := map[string][]History{}
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		for i := range 30 {
			mt := []string{"c2-standard-8", "c3-standard-8", "c2d-standard-8"}[i%3]
			vals := []float64{float64(1000 + i*7%13), float64(990 + i*5%11), float64(1010 - i%7)}
			r, s := fioRun(fmt.Sprintf("run-%02d", i), "fio", i, map[string]string{results.LabelMachineType: mt, "x-mhz": fmt.Sprint(2000 + 100*(i%2))}, vals...)
			index(t, db, r, s)
		}
		for _, m := range []string{"read_iops", "read_bw"} {
			hs, err := db.History(context.Background(), Query{Metric: m, Runs: 7})
			if err != nil {
				t.Fatal(err)
			}
			got[t.Name()[len("TestEnginesAgree/"):]] = append(got[t.Name()[len("TestEnginesAgree/"):]], hs...)
		}
	})
	if len(got["sqlite"]) != 12 || len(got["postgres"]) != 12 {
		t.Fatalf("%d and %d configurations, want 12", len(got["sqlite"]), len(got["postgres"]))
	}
	for i, h := range got["sqlite"] {
		if !reflect.DeepEqual(h, got["postgres"][i]) {
			t.Errorf("the engines disagree:\nsqlite   %+v\npostgres %+v", h, got["postgres"][i])
		}
	}
}

// The sampler's summaries of what the nodes did are configurations of their
// own (per device), never figures: no history check or plot takes them.
func TestSamplerSummariesAreNoFigures(t *testing.T) {
	run, samples := fioRun("s1", "fio", 0, map[string]string{results.LabelMachineType: "c3"}, 1000)
	for _, dev := range []string{"nvme0n1", "nvme1n1"} {
		samples = append(samples, results.Sample{Test: "randread-4k", Metric: "disk_iops", Unit: "IOPS", Value: 500,
			Labels: map[string]string{"source": "sampler", "device": dev}})
	}
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		index(t, db, run, samples)
		hs, err := db.RunHistories(context.Background(), "s1", 10, Config.Figure, 100)
		if err != nil {
			t.Fatal(err)
		}
		var metrics []string
		for _, h := range hs {
			metrics = append(metrics, h.Config.Metric)
		}
		if !reflect.DeepEqual(metrics, []string{"read_bw", "read_iops"}) {
			t.Errorf("the run's figures: %v, want read_bw and read_iops, not the sampler's disk_iops", metrics)
		}
		all, _ := db.History(context.Background(), Query{Metric: "disk_iops"})
		if len(all) != 2 {
			t.Errorf("the sampler's disk_iops: %d configurations, want one per device", len(all))
		}
	})
}

// Hostile labels are bounded and stored as data: a label value holding SQL,
// quotes comes back as it was (without its NUL, which PostgreSQL's text
// cannot hold), a 10 KiB value clipped, 500 labels cut to 128, those a
// history reads kept; a test name with a NUL is indexed without it.
func TestHostileLabelsAreBoundedAndStoredSafely(t *testing.T) {
	labels := map[string]string{
		results.LabelMachineType: `c3'); DROP TABLE samples; --`,
		"x-quote":                "\"'`\x00\n",
		"huge":                   strings.Repeat("é", 5000),
	}
	for i := range 500 {
		labels[fmt.Sprintf("k%03d", i)] = "v"
	}
	run, samples := fioRun("hostile", "fio", 0, labels, 1000)
	samples = append(samples, results.Sample{Test: "bad\x00test", Metric: "read_iops", Unit: "IOPS", Value: 1})
	eachEngine(t, func(t *testing.T, db *DB, _ string) {
		index(t, db, run, samples)
		hs, err := db.History(context.Background(), Query{Metric: "read_iops", Labels: map[string]string{results.LabelMachineType: labels[results.LabelMachineType]}})
		if err != nil || len(hs) != 1 || hs[0].Points[0].Median != 1000 {
			t.Fatalf("the run with hostile labels: %+v, %v", hs, err)
		}
		if hs, err := db.History(context.Background(), Query{Metric: "read_iops", Test: "badtest"}); err != nil || len(hs) != 1 {
			t.Errorf("the test name with a NUL: %+v, %v", hs, err)
		}
		var stored string
		if err := db.sql.QueryRow(`SELECT labels FROM samples WHERE run_uid = 'hostile' AND seq = 1`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(stored), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != maxLabels {
			t.Errorf("%d labels stored, want %d", len(got), maxLabels)
		}
		if h, ok := got["huge"]; ok && (len(h) > maxTextBytes || !strings.HasSuffix(h, truncatedMark) || !utf8.ValidString(h)) {
			t.Errorf("the huge label: %d bytes, valid UTF-8 %v", len(h), utf8.ValidString(h))
		}
		if got["x-quote"] != "\"'`\n" || got[results.LabelMachineType] != labels[results.LabelMachineType] {
			t.Errorf("the labels a history reads came back as %q and %q", got["x-quote"], got[results.LabelMachineType])
		}
	})
}
