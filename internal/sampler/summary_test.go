package sampler

import (
	"math"
	"testing"
	"time"
)

func TestSummarizePerPhase(t *testing.T) {
	at := func(s float64) int64 { return 1_000_000 + int64(s*1000) }
	pt := func(end float64, user float64, core0 float64, util float64) Point {
		return Point{T: at(end), Dt: 1,
			CPU:   []float64{user, 0, 0, 10, 0, 0, 0, 90 - user},
			Cores: [][]float64{{core0, 0, 0, 0, 0, 0, 0}, nil, {5, 0, 0, 0, 0, 0, 0}},
			Disks: map[string][]float64{"sdb": {1000, 0, 4, 0, util, 2}, "sda": {0, 0, 0, 0, 0, 0}},
			Nets:  map[string][]float64{"eth0": {1, 2, 0, 0, 0, 0}},
			Pod:   []float64{90, 100, 2},
		}
	}
	s := Series{Points: []Point{pt(1, 20, 50, 40), pt(2, 40, 100, 60), pt(3, 60, 96, 100), pt(4, 0, 0, 0)}}
	start := time.UnixMilli(at(0))
	got := Summarize(s, []Phase{NewPhase("read", start.Add(500*time.Millisecond), start.Add(3*time.Second))})
	want := map[string]float64{
		MetricCPUUtil: 40, MetricCPUUtilMax: 60, MetricIowait: 10,
		MetricBusiestCore: 82, MetricBusiestCoreMax: 100,
		MetricDiskUtil + "/sdb": 66.67, MetricDiskUtilMax + "/sdb": 100, MetricDiskIOPS + "/sdb": 1000,
		MetricNetMBps + "/eth0": 3, MetricPodCPU: 90, MetricPodRSSMax: 100,
	}
	seen := map[string]bool{}
	for _, g := range got {
		key := g.Metric
		if d := g.Labels[LabelDevice] + g.Labels[LabelIface]; d != "" {
			key += "/" + d
		}
		seen[key] = true
		if g.Test != "read" || g.Labels[LabelSource] != SourceValue {
			t.Errorf("%+v: want test read, source sampler", g)
		}
		if w, ok := want[key]; ok && math.Abs(g.Value-w) > 0.01 {
			t.Errorf("%s = %g, want %g", key, g.Value, w)
		}
		if key == MetricDiskUtil+"/sda" {
			t.Errorf("an idle disk is summarised: %+v", g)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no %s", k)
		}
	}
	if out := Summarize(s, []Phase{NewPhase("later", start.Add(time.Hour), start.Add(2*time.Hour))}); len(out) != 0 {
		t.Errorf("a phase without points has summaries: %+v", out)
	}
}
