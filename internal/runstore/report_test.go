package runstore

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// The run's report.html has its figures, what its nodes did, and its
// stored series over time; a stored record that is not one is said, not
// drawn, and fails nothing.
func TestWriteReportDrawsTheSeries(t *testing.T) {
	ctx := context.Background()
	r, _ := newRun(t)
	start := measured.UnixMilli()
	var samples []results.Sample
	for rep := range 2 {
		samples = append(samples, latency(rep, "0", "8", 3))
		util := results.Sample{RunUID: "u1", Kind: "MPIBenchmark", Namespace: "hpc", Benchmark: "lat", Test: "osu_latency",
			Metric: sampler.MetricBusiestCore, Value: 99, Unit: "%", Repetition: rep, Timestamp: measured,
			Labels: map[string]string{sampler.LabelSource: sampler.SourceValue, sampler.LabelSide: "launcher", results.LabelNode: "n1"}}
		samples = append(samples, util)
	}
	if _, err := r.AddRepetition(ctx, 0, samples[:2], nil, groupBySize); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddRepetition(ctx, 1, samples[2:], nil, groupBySize); err != nil {
		t.Fatal(err)
	}
	header := sampler.Header{V: sampler.Version, Start: start, Interval: 1, Budget: sampler.DefaultBudget,
		Fields: map[string][]string{"cpu": sampler.CPUFields, "cores": sampler.CoreFields, "mem": sampler.MemFields,
			"psi": sampler.PSIFields, "disk": sampler.DiskFields, "net": sampler.NetFields, "pod": sampler.PodFields}}
	var points []sampler.Point
	for i := 1; i <= 5; i++ {
		points = append(points, sampler.Point{T: start + int64(i)*1000, Dt: 1, CPU: []float64{50, 0, 0, 0, 0, 0, 0, 50}})
	}
	rec := sampler.Record{Pod: "lat-launcher", Node: "n1", Series: sampler.Series{Header: header, Points: points},
		Phases: []sampler.Phase{sampler.NewPhase("osu_latency", measured.Add(time.Second), measured.Add(4*time.Second))}}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PutMonitor(ctx, 0, "lat-launcher", data); err != nil {
		t.Fatal(err)
	}
	if err := r.PutMonitor(ctx, 1, "lat-launcher", []byte("<html>not a record</html>")); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteReport(ctx); err != nil {
		t.Fatal(err)
	}
	page := string(get(t, r, "report.html"))
	for _, want := range []string{`<section id="nodes">`, "one core 99 % busy during osu_latency (launcher side)",
		`<figure class="series">`, "repetition 1: pod lat-launcher on node n1", "monitor/1/lat-launcher.json skipped: not a sampler record"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html has no %q", want)
		}
	}
	if strings.Count(page, `<figure class="series">`) != 1 || strings.Contains(page, "<html>not") {
		t.Error("report.html draws the record that is not one, or shows it as HTML")
	}
}
