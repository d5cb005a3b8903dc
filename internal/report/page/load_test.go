package page

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// writeSamples writes samples as NDJSON to path, creating its directory.
func writeSamples(t *testing.T, path string, samples []results.Sample) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := results.WriteNDJSON(&b, samples); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadFilesAndDirectories(t *testing.T) {
	dir := t.TempDir()
	parsed := []results.Sample{{Test: "osu_latency", Metric: "latency", Unit: "us", Value: 3, Labels: map[string]string{"msg_size": "8"}}}
	writeSamples(t, filepath.Join(dir, "osu_latency_v7.5.ndjson"), parsed)
	// A `benchwright run` results directory.
	writeSamples(t, filepath.Join(dir, "results", "fio-c2", source.SamplesFile), storageSamples()[:12])
	// An artifact-store prefix: <ns>/<kind>/<name>/<uid>/samples.ndjson; the
	// later run sorts first by name but comes second by time.
	late, early := storageSamples()[12:], mpiSamples()
	for i := range late {
		late[i].Timestamp = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	}
	writeSamples(t, filepath.Join(dir, "store", "default", "StorageBenchmark", "a-late", "u1", source.SamplesFile), late)
	writeSamples(t, filepath.Join(dir, "store", "default", "MPIBenchmark", "z-early", "u2", source.SamplesFile), early)

	runs, err := compare.Load(context.Background(), source.Files{
		filepath.Join(dir, "osu_latency_v7.5.ndjson"), filepath.Join(dir, "results", "fio-c2"), filepath.Join(dir, "store"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Name)
	}
	if want := "osu_latency_v7.5 fio-c2 osu-on-node osu-off-node fio-c3"; strings.Join(got, " ") != want {
		t.Errorf("runs %q, want %q", got, want)
	}
	if r := runs[0]; r.Benchmark != "osu_latency_v7.5" || r.Repetitions != 1 || len(r.Summaries) != 1 {
		t.Errorf("parsed file run: %+v", r)
	}
	if r := runs[1]; r.Repetitions != 3 || r.Warmups != 1 || r.MachineType != "c2-standard-60" || r.Samples != 9 {
		t.Errorf("results dir run: %d reps, %d warm-ups, machine %q, %d samples", r.Repetitions, r.Warmups, r.MachineType, r.Samples)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "lat.txt")
	if err := os.WriteFile(raw, []byte("# OSU MPI Latency Test v7.5\n8 3.07\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.ndjson")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	warm := filepath.Join(dir, "warm.ndjson")
	writeSamples(t, warm, []results.Sample{{Test: "t", Metric: "m", Labels: map[string]string{results.LabelWarmup: "true"}}})
	for _, tc := range []struct {
		path, want string
		is         error
	}{
		{raw, "benchwright parse --tool TOOL", source.ErrNotSamples},
		{empty, "holds no sample", source.ErrNotSamples},
		{dir + "/nothing-here", "no such file", nil},
		{t.TempDir(), "no samples.ndjson in it or below it", nil},
		{warm, "every sample is a warm-up one", compare.ErrNoRuns},
	} {
		_, err := compare.Load(context.Background(), source.Files{tc.path})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.path, err, tc.want)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v is not %v", tc.path, err, tc.is)
		}
	}
}

func TestGroupNamesRunsUniquely(t *testing.T) {
	s := func(ns, bench, uid string) results.Sample {
		return results.Sample{Namespace: ns, Benchmark: bench, RunUID: uid, Test: "t", Metric: "bw", Unit: "MB/s", Value: 1}
	}
	runs := group(t, []results.Sample{s("a", "bench", "0123456789"), s("a", "bench", "abcdefghij"), s("a", "other", ""),
		s("a", "dup", ""), s("b", "dup", "")})
	var got []string
	for _, r := range runs {
		got = append(got, r.Name)
	}
	if want := "bench@01234567 bench@abcdefgh other a/dup b/dup"; strings.Join(got, " ") != want {
		t.Errorf("names %q, want %q", got, want)
	}
	if i, err := compare.Find(runs, "other"); err != nil || i != 2 {
		t.Errorf("Find(other) = %d, %v", i, err)
	}
	if _, err := compare.Find(runs, "bench"); err == nil || !strings.Contains(err.Error(), "several runs") {
		t.Errorf("Find(bench) = %v, want an ambiguity error", err)
	}
	if _, err := compare.Find(runs, "nope"); err == nil {
		t.Error("Find(nope) found a run")
	}
}
