package page

import (
	"bytes"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/results"
)

// sample is a builder of one sample.
func sample(benchmark, machine, test, metric, unit, size string, rep int, v float64) results.Sample {
	s := results.Sample{Kind: "StorageBenchmark", Namespace: "default", Benchmark: benchmark, RunUID: "uid-" + benchmark,
		Test: test, Metric: metric, Unit: unit, Value: v, Repetition: rep,
		Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Labels:    map[string]string{results.LabelMachineType: machine}}
	if size != "" {
		s.Kind = "MPIBenchmark"
		s.Labels[results.LabelMsgSize] = size
	}
	return s
}

// storageSamples are two fio runs of three counted repetitions after a
// warm-up one that is far off.
func storageSamples() []results.Sample {
	var out []results.Sample
	for _, r := range []struct {
		name, machine string
		iops, lat     [4]float64
	}{
		{"fio-c2", "c2-standard-60", [4]float64{5, 100000, 102000, 98000}, [4]float64{9999, 250, 260, 255}},
		{"fio-c3", "c3-highcpu-176", [4]float64{5, 260000, 258000, 262000}, [4]float64{9999, 100, 98, 102}},
	} {
		for rep := range 4 {
			iops := sample(r.name, r.machine, "randread-4k", "read_iops", "IOPS", "", rep, r.iops[rep])
			lat := sample(r.name, r.machine, "randread-4k", "read_clat_mean", "us", "", rep, r.lat[rep])
			runtime := sample(r.name, r.machine, "randread-4k", "read_runtime", "ms", "", rep, 60000)
			if rep == 0 {
				for _, s := range []*results.Sample{&iops, &lat, &runtime} {
					s.Labels[results.LabelWarmup] = "true"
				}
			}
			out = append(out, iops, lat, runtime)
		}
	}
	return out
}

// mpiSamples are OSU latency and bandwidth on one node and across two; the
// second run's bandwidth is in MiB/s, and it lacks the 1 MiB size.
func mpiSamples() []results.Sample {
	var out []results.Sample
	for rep := range 2 {
		f := 1 + 0.01*float64(rep)
		out = append(out,
			sample("osu-on-node", "c2-standard-8", "osu_latency", "latency", "us", "8", rep, 0.25*f),
			sample("osu-on-node", "c2-standard-8", "osu_latency", "latency", "us", "1048576", rep, 80*f),
			sample("osu-on-node", "c2-standard-8", "osu_bw", "bandwidth", "MB/s", "8", rep, 30*f),
			sample("osu-on-node", "c2-standard-8", "osu_bw", "bandwidth", "MB/s", "1048576", rep, 12000*f),
			sample("osu-off-node", "c2-standard-8", "osu_latency", "latency", "us", "8", rep, 19*f),
			sample("osu-off-node", "c2-standard-8", "osu_bw", "bandwidth", "MiB/s", "8", rep, 2*f),
		)
	}
	return out
}

func TestGoldenStorage(t *testing.T) {
	goldenReport(t, storageSamples(), "fio on C2 and C3", "storage")
}

func TestGoldenMPI(t *testing.T) {
	goldenReport(t, mpiSamples(), "OSU on-node vs off-node", "mpi")
}

// goldenReport compares the Markdown and CSV reports of samples, titled
// title, with testdata/name.md and testdata/name.csv.
func goldenReport(t *testing.T, samples []results.Sample, title, name string) {
	t.Helper()
	rep, err := New(group(t, samples), Options{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	var md, csv bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	golden(t, name+".md", md.Bytes())
	golden(t, name+".csv", csv.Bytes())
}

func TestGoldenCompareAndResults(t *testing.T) {
	runs := group(t, mpiSamples())
	rows, err := compare.Compare(runs, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, csv, res bytes.Buffer
	if err := WriteCompareText(&text, runs, 0, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareMarkdown(&md, runs, 0, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareCSV(&csv, runs, 0, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&res, runs, compare.Table(runs, false)); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.txt", text.Bytes())
	golden(t, "compare.md", md.Bytes())
	golden(t, "compare.csv", csv.Bytes())
	golden(t, "results.txt", res.Bytes())
}
