//go:build real

package real

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchwright/benchwright/internal/monitor"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// checkMonitor checks what the sampler sidecars left of a run: a complete
// series per pod and repetition, at about one point a second, with the
// tests as phases and the disk behind the first volume named, and the
// summary samples in samples.ndjson. tests are each series' phases in order
// (nil: any, at least one). It returns the samples of the sampler.
func checkMonitor(t *testing.T, uri string, reps int, tests []string, volume string) []results.Sample {
	t.Helper()
	dir := storeDir(t, uri)
	files, err := filepath.Glob(filepath.Join(dir, "monitor", "*", "*.json"))
	if err != nil || len(files) < reps {
		t.Fatalf("%d series under %s/monitor, want one per pod and repetition (%d repetitions): %v", len(files), dir, reps, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rec monitor.Record
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s := rec.Series
		if !rec.Complete() {
			t.Errorf("%s: incomplete: restarts %d, problems %q", f, rec.Restarts, s.Problems)
		}
		var phases []string
		for _, p := range rec.Phases {
			phases = append(phases, p.Test)
			if p.EndMs <= p.StartMs || p.StartMs < s.Header.Start {
				t.Errorf("%s: phase %+v outside the series (from %d)", f, p, s.Header.Start)
			}
		}
		if tests != nil && !slices.Equal(phases, tests) || len(phases) == 0 {
			t.Errorf("%s: phases %v, want %v", f, phases, tests)
		}
		span := float64(s.Points[len(s.Points)-1].T-s.Header.Start) / 1000
		if n := float64(len(s.Points)); n < span*0.8 || s.Points[0].CPU == nil || s.Points[0].Pod == nil {
			t.Errorf("%s: %d points over %.1f s (first %+v): want one a second with CPU and the pod's processes", f, len(s.Points), span, s.Points[0])
		}
		if volume != "" && !validDevice(s.Header.Volumes[volume]) {
			t.Errorf("%s: volumes %v: no disk named for %s", f, s.Header.Volumes, volume)
		}
		if last := s.Notes[len(s.Notes)-1].Note; last != "stopped" {
			t.Errorf("%s: last note %q: the sampler was not stopped by the kubelet's SIGTERM", f, last)
		}
		t.Logf("%s: %d points, phases %v, volumes %v, notes %d", filepath.Base(f), len(s.Points), phases, s.Header.Volumes, len(s.Notes))
	}
	data, err := os.ReadFile(filepath.Join(dir, "samples.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	all, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []results.Sample
	for _, s := range all {
		if s.Labels[sampler.LabelSource] == sampler.SourceValue {
			out = append(out, s)
		}
	}
	for _, test := range tests {
		if !slices.ContainsFunc(out, func(s results.Sample) bool { return s.Test == test && s.Metric == sampler.MetricCPUUtil }) {
			t.Errorf("no %s summary for test %s in samples.ndjson", sampler.MetricCPUUtil, test)
		}
	}
	return out
}

func validDevice(s string) bool {
	return s != "" && !bytes.Contains([]byte(s), []byte(":"))
}
