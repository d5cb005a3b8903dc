package page

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/mpi/imb"
	"github.com/benchwright/benchwright/internal/mpi/ior"
	"github.com/benchwright/benchwright/internal/mpi/osu"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// outDir is where the scenario reports are kept for a look (screenshots):
// $BENCHWRIGHT_REPORT_DIR, else nowhere.
var outDir = os.Getenv("BENCHWRIGHT_REPORT_DIR")

// parseFixture parses a real tool output of the shared fixtures.
func parseFixture(t *testing.T, tool, name string) []results.Sample {
	t.Helper()
	data := fixtures.Read(t, name)
	var samples []results.Sample
	var err error
	switch tool {
	case "osu":
		samples, err = osu.Parse(data)
	case "imb":
		samples, err = imb.Parse(data)
	case "ior":
		samples, err = ior.Parse(data)
	case "fio":
		samples, err = fio.ParseJSON(data)
	case "dd":
		var runs []fio.DDResult
		runs, err = fio.ParseDD(data)
		for _, r := range runs {
			samples = append(samples, fio.DDSamples(r, "dd", "write")...)
		}
	default:
		t.Fatalf("unknown tool %q", tool)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return samples
}

// run is a fluent builder of a run's samples, as a controller labels them.
type run struct {
	kind    string
	samples []results.Sample
}

// newRun is a run of a benchmark of kind.
func newRun(kind string) *run { return &run{kind: kind} }

// add appends samples as repetition rep of benchmark on machine, with their
// values scaled by factor; test renames them when not empty.
func (r *run) add(samples []results.Sample, benchmark, machine, test string, rep int, factor float64) *run {
	for _, s := range samples {
		s.Kind, s.Namespace, s.Benchmark, s.RunUID = r.kind, "seeds", benchmark, "uid-"+benchmark
		if test != "" {
			s.Test = test
		}
		s.Value *= factor
		s.Repetition = rep
		labels := map[string]string{}
		for k, v := range s.Labels {
			labels[k] = v
		}
		if machine != "" {
			labels[results.LabelMachineType] = machine
		}
		s.Labels = labels
		r.samples = append(r.samples, s)
	}
	return r
}

// warmup marks the samples of repetition rep as warm-up ones.
func (r *run) warmup(rep int) *run {
	for i := range r.samples {
		if r.samples[i].Repetition == rep {
			r.samples[i].Labels[results.LabelWarmup] = "true"
		}
	}
	return r
}

func (r *run) obj() []results.Sample { return r.samples }

// group groups samples into runs, failing the test on error.
func group(t testing.TB, samples ...[]results.Sample) []compare.Run {
	t.Helper()
	var all []results.Sample
	for _, s := range samples {
		all = append(all, s...)
	}
	runs, err := compare.Group([]source.Set{{Origin: "test.ndjson", Samples: all}})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// keep writes a rendered report to $BENCHWRIGHT_REPORT_DIR when set.
func keep(t *testing.T, name string, data []byte) {
	t.Helper()
	if outDir == "" {
		return
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outDir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
