package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// nodeSample is a sampler's summary sample of benchmark's run on node n1,
// as the manager labels it; labels adds k, v pairs.
func nodeSample(benchmark, test, metric string, rep int, v float64, labels ...string) results.Sample {
	s := sample(benchmark, "c2-standard-60", test, metric, "%", "", rep, v)
	s.Labels[sampler.LabelSource] = sampler.SourceValue
	s.Labels[results.LabelNode] = "n1"
	for i := 0; i+1 < len(labels); i += 2 {
		s.Labels[labels[i]] = labels[i+1]
	}
	return s
}

// busyStorage are storageSamples with what fio-c2's node did: one core
// and vda at their limits during randread-4k, two disks kept apart; the
// warm-up repetition far off, as the tool's.
func busyStorage() []results.Sample {
	out := storageSamples()
	for rep := range 4 {
		f := 1.0
		if rep == 0 {
			f = 0.1
		}
		for _, s := range []results.Sample{
			nodeSample("fio-c2", "randread-4k", sampler.MetricCPUUtil, rep, 40*f),
			nodeSample("fio-c2", "randread-4k", sampler.MetricBusiestCore, rep, 97*f),
			nodeSample("fio-c2", "randread-4k", sampler.MetricSteal, rep, 1),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskUtil, rep, 99.8*f, sampler.LabelDevice, "vda"),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, rep, 100000*f, sampler.LabelDevice, "vda"),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskUtil, rep, 3, sampler.LabelDevice, "vdb"),
			nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, rep, 10, sampler.LabelDevice, "vdb"),
			nodeSample("fio-c3", "randread-4k", sampler.MetricBusiestCore, rep, 50),
			nodeSample("fio-c3", "randread-4k", sampler.MetricDiskIOPS, rep, 260000, sampler.LabelDevice, "nvme0n1"),
		} {
			if rep == 0 {
				s.Labels[results.LabelWarmup] = "true"
			}
			out = append(out, s)
		}
	}
	return out
}

// The sampler's summaries are never tool figures: not in Summaries, the
// figures' rows, CSV, comparisons, plots or fits; they are each run's
// Nodes, a device's apart from another's.
func TestSamplerSamplesAreNotFigures(t *testing.T) {
	runs := group(t, busyStorage())
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	isNode := func(metric string) bool {
		return strings.HasPrefix(metric, "node_") || strings.HasPrefix(metric, "disk_")
	}
	for _, r := range runs {
		for _, s := range r.Summaries {
			if isNode(s.Metric) {
				t.Errorf("%s: the sampler's %s is among the tool's summaries", r.Name, s.Metric)
			}
		}
		if r.Samples != 9 || r.Repetitions != 3 {
			t.Errorf("%s: %d samples, %d repetitions: want the tool's 9 and 3", r.Name, r.Samples, r.Repetitions)
		}
	}
	var vda, vdb results.Summary
	for _, s := range runs[0].Nodes {
		if s.Metric == sampler.MetricDiskIOPS {
			switch s.Labels[sampler.LabelDevice] {
			case "vda":
				vda = s
			case "vdb":
				vdb = s
			}
		}
	}
	if vda.Stats.N != 3 || vda.Stats.Median != 100000 || vdb.Stats.Median != 10 {
		t.Errorf("disk IOPS: vda %+v, vdb %+v: want each device's over the 3 counted repetitions", vda.Stats, vdb.Stats)
	}
	for _, row := range Table(runs, true) {
		if isNode(row.Metric) {
			t.Errorf("figure row %+v", row)
		}
	}
	rows, err := CompareWith(runs, 0, CompareOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if isNode(row.Metric) {
			t.Errorf("comparison row %+v", row)
		}
	}
	for _, p := range plan(runs) {
		if strings.Contains(p.Title, "disk_") || strings.Contains(p.Title, "node_") {
			t.Errorf("plot %q", p.Title)
		}
	}
	rep, err := New(runs, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := rep.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csv.String(), "disk_iops") || strings.Contains(csv.String(), "node_busiest") {
		t.Errorf("the CSV has the sampler's figures:\n%s", csv.String())
	}
	for _, a := range rep.Along {
		for _, g := range a.Groups {
			for _, row := range g.Rows {
				if isNode(row.Metric) {
					t.Errorf("along %s: row %+v", a.Dimension.Name, row)
				}
			}
		}
	}
}

// Two pods of one node on the same side (two MPI workers) sample the same
// node: their figures are averaged, not added as throughput is.
func TestNodeSummariesAverageOneNode(t *testing.T) {
	runs := group(t, storageSamples()[3:6], []results.Sample{
		nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, 1, 1000, sampler.LabelDevice, "vda", sampler.LabelSide, "worker"),
		nodeSample("fio-c2", "randread-4k", sampler.MetricDiskIOPS, 1, 1200, sampler.LabelDevice, "vda", sampler.LabelSide, "worker"),
	})
	if len(runs[0].Nodes) != 1 || runs[0].Nodes[0].Stats.Median != 1100 {
		t.Errorf("nodes %+v, want one figure of 1100", runs[0].Nodes)
	}
}
