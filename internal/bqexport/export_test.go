package bqexport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/resultsdb"
)

var t0 = time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)

// someRuns are runs of each kind of content a row can have: nodes with
// tuning settings, a campaign, warm-ups, timestamps, hostile labels, no
// unit, a sample without labels.
func someRuns() []struct {
	run     resultsdb.Run
	samples []results.Sample
} {
	type r = struct {
		run     resultsdb.Run
		samples []results.Sample
	}
	fio := resultsdb.Run{UID: "0b6c0000-aaaa", Kind: "StorageBenchmark", Namespace: "perf", Name: "fio-nightly",
		Started: t0, Finished: t0.Add(10 * time.Minute), Location: "perf/StorageBenchmark/fio-nightly/0b6c0000-aaaa/",
		Nodes: []results.NodeInfo{{Hostname: "n1", MachineType: "c3-standard-8", Zone: "europe-west4-a", Kernel: "6.1.0", CPUs: 8,
			MemoryBytes: 32 << 30, ThreadsPerCore: 1, Tuning: "hpc", TuningSettings: map[string]string{"vm.swappiness": "0"}}}}
	var fs []results.Sample
	for rep, v := range []float64{88000, 89000.25, 87000} {
		labels := map[string]string{results.LabelMachineType: "c3-standard-8", results.LabelNode: "n1"}
		if rep == 0 {
			labels[results.LabelWarmup] = "true"
		}
		fs = append(fs, results.Sample{Test: "randread-4k", Metric: "read_iops", Unit: "IOPS", Value: v, Repetition: rep,
			Timestamp: t0.Add(time.Duration(rep) * time.Minute).Add(123456789), Labels: labels})
	}
	cell := resultsdb.Run{UID: "1c2d0000-bbbb", Kind: "MPIBenchmark", Namespace: "hpc", Name: "s0-abcde-c3-none-osu",
		Series: "osu", Pool: "c3", Tuning: "none", Campaign: "s0-abcde", Started: t0.Add(time.Hour), Finished: t0.Add(2 * time.Hour),
		Location: "hpc/MPIBenchmark/s0-abcde-c3-none-osu/1c2d0000-bbbb/"}
	cs := []results.Sample{
		{Test: "osu_latency", Metric: "latency", Unit: "us", Value: 1.75, Labels: map[string]string{results.LabelMsgSize: "8",
			"x-note": "<b>\"quoted\" & \x00nul\u2028</b>", "x-emoji": "🚀"}},
		{Test: "osu_latency", Metric: "count", Value: 3},
		{Test: "bad\x00test", Metric: "latency", Unit: "us", Value: -0.5, Repetition: 1},
	}
	return []r{{fio, fs}, {cell, cs}}
}

func indexAll(t *testing.T, db *resultsdb.DB, runs []struct {
	run     resultsdb.Run
	samples []results.Sample
}) {
	t.Helper()
	for _, r := range runs {
		if _, err := db.Index(context.Background(), r.run, resultsdb.SamplesOf(r.samples)); err != nil {
			t.Fatal(err)
		}
	}
}

// Every exported row fits the schema file, every column of it is
// exercised, and both engines export the same bytes.
func TestExportRowsFitTheSchemaOnBothEngines(t *testing.T) {
	cols, err := parseSchemaFile(mustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	eachEngine(t, func(t *testing.T, db *resultsdb.DB) {
		indexAll(t, db, someRuns())
		var buf bytes.Buffer
		st, err := Export(context.Background(), db, resultsdb.RunFilter{}, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if st != (Stats{Rows: 6, Runs: 2}) {
			t.Errorf("stats %+v, want 6 rows of 2 runs", st)
		}
		seen := map[string]bool{}
		lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
		for i, line := range lines {
			if err := checkRow(cols, line, seen); err != nil {
				t.Errorf("row %d: %v\n%s", i+1, err, line)
			}
		}
		var missing []string
		for _, c := range allColumns(cols, "") {
			if !seen[c] {
				missing = append(missing, c)
			}
		}
		// The node fields the test's runs leave empty are NULLABLE ones.
		for _, c := range missing {
			if !strings.HasPrefix(c, "nodes.") {
				t.Errorf("no row has a value of %s: the test does not exercise it", c)
			}
		}
		if len(lines) != 6 {
			t.Fatalf("%d lines:\n%s", len(lines), buf.String())
		}
		t.Logf("the first and the last rows:\n%s\n%s", lines[0], lines[len(lines)-1])
		for _, want := range []string{
			`"run_uid":"0b6c0000-aaaa"`, `"finished":"2026-11-20 02:10:00.000000 UTC"`, `"warmup":true`,
			`"sample_time":"2026-11-20 02:00:00.123456 UTC"`, `"value":89000.25`,
			`"nodes":[{"hostname":"n1","machine_type":"c3-standard-8","zone":"europe-west4-a","kernel":"6.1.0","cpus":8,"memory_bytes":34359738368,"threads_per_core":1,"tuning":"hpc","tuning_settings":[{"key":"vm.swappiness","value":"0"}]}]`,
			`"benchmark":"osu","campaign":"s0-abcde","pool":"c3","tuning":"none"`,
			`{"key":"x-note","value":"<b>\"quoted\" & nul\u2028</b>"}`, `"test":"badtest"`, `"unit":""`,
		} {
			if !bytes.Contains(buf.Bytes(), []byte(want)) {
				t.Errorf("the export lacks %s", want)
			}
		}
		out[t.Name()] = buf.Bytes()
	})
	sqlite, pg := out[t.Name()+"/sqlite"], out[t.Name()+"/postgres"]
	if len(sqlite) == 0 || !bytes.Equal(sqlite, pg) {
		t.Errorf("the engines export differently:\nsqlite:\n%s\npostgres:\n%s", sqlite, pg)
	}
}

func allColumns(cols []column, path string) []string {
	var out []string
	for _, c := range cols {
		name := path + c["name"].(string)
		out = append(out, name)
		if sub, _ := subColumns(c); sub != nil {
			out = append(out, allColumns(sub, name+".")...)
		}
	}
	return out
}

// NaN and the infinities are no JSON numbers: such samples are left out and
// counted (SQLite stores no NaN; PostgreSQL does).
func TestExportCountsNonFiniteValues(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *resultsdb.DB) {
		values := []float64{1, math.Inf(1), math.Inf(-1), 2}
		if !strings.HasPrefix(db.String(), "sqlite:") {
			values = append(values, math.NaN())
		}
		var samples []results.Sample
		for i, v := range values {
			samples = append(samples, results.Sample{Test: "t", Metric: "m", Unit: "u", Value: v, Repetition: i})
		}
		run := resultsdb.Run{UID: "nan", Kind: "StorageBenchmark", Namespace: "perf", Name: "fio", Started: t0, Finished: t0, Location: "x/"}
		if _, err := db.Index(context.Background(), run, resultsdb.SamplesOf(samples)); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		st, err := Export(context.Background(), db, resultsdb.RunFilter{}, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if st.Rows != 2 || st.NonFinite != len(values)-2 || bytes.Count(buf.Bytes(), []byte("\n")) != 2 {
			t.Errorf("%+v, want 2 rows and %d left out:\n%s", st, len(values)-2, buf.String())
		}
	})
}

// countingWriter counts what is written, and keeps none of it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// An export holds a row at a time: 100 000 rows (about 75 MB of NDJSON)
// go through a heap that grows by a few MiB.
func TestExportMemoryStaysBounded(t *testing.T) {
	const runs, perRun = 4, 25_000
	nodes := []results.NodeInfo{{Hostname: "node-0", MachineType: "c3-standard-88", Kernel: "6.1.0-gke", CPUs: 88, CPUModel: "Intel Xeon Platinum 8481C"},
		{Hostname: "node-1", MachineType: "c3-standard-88", Kernel: "6.1.0-gke", CPUs: 88, CPUModel: "Intel Xeon Platinum 8481C"}}
	eachEngine(t, func(t *testing.T, db *resultsdb.DB) {
		for r := range runs {
			run := resultsdb.Run{UID: fmt.Sprintf("big-%d", r), Kind: "MPIBenchmark", Namespace: "hpc", Name: "imb",
				Started: t0, Finished: t0.Add(time.Duration(r) * time.Hour), Location: "hpc/MPIBenchmark/imb/", Nodes: nodes}
			// Made as they are read, not held: only the export is measured.
			generated := func(add func(results.Sample) error) error {
				for i := range perRun {
					if err := add(results.Sample{Test: fmt.Sprintf("IMB-%02d", i%50), Metric: "latency", Unit: "us", Value: float64(i%977) + 0.5,
						Repetition: i / 5000, Labels: map[string]string{results.LabelMsgSize: fmt.Sprint(1 << (i / 100 % 25)),
							results.LabelNode: fmt.Sprintf("node-%d", i%2), results.LabelMPI: "intel"}}); err != nil {
						return err
					}
				}
				return nil
			}
			if _, err := db.Index(context.Background(), run, generated); err != nil {
				t.Fatal(err)
			}
		}
		base, peak := heapPeak(func() {
			var w countingWriter
			st, err := Export(context.Background(), db, resultsdb.RunFilter{}, bufio.NewWriter(&w))
			if err != nil || st.Rows != runs*perRun {
				t.Fatalf("%+v, %v", st, err)
			}
			t.Logf("%d rows, %.1f MB of NDJSON", st.Rows, float64(w.n)/1e6)
			if w.n < 64<<20 {
				t.Errorf("only %d bytes: the rows are smaller than this test means", w.n)
			}
		})
		t.Logf("heap in use: %.1f MiB before, %.1f MiB at most while exporting", mib(base), mib(peak))
		if grew := peak - base; grew > 16<<20 {
			t.Errorf("the heap grew by %.1f MiB while exporting: the export holds rows", mib(grew))
		}
	})
}

// heapPeak runs f and returns the heap in use before it and the most seen
// while it ran (sampled every 2 ms).
func heapPeak(f func()) (base, peak uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base = m.HeapInuse
	var top atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > top.Load() {
				top.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return base, top.Load()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
