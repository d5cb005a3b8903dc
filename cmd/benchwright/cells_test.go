package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/test/wrappers"
)

func TestCampaignOf(t *testing.T) {
	if campaignOf(nil, map[string]map[string]string{}) != nil {
		t.Error("benchmarks of no campaign make a campaign")
	}
	place := placeOf(map[string]string{campaign.PoolLabel: "c2", campaign.TuningLabel: "none", campaign.BenchmarkLabel: "1pd"})
	if place["pool"] != "c2" || place["tuning"] != "none" || place["benchmark"] != "1pd" || placeOf(map[string]string{"app": "x"}) != nil {
		t.Errorf("place %v", place)
	}
	places := map[string]map[string]string{"wf-c2-none-1pd": place}
	m, err := campaign.Parse(campaign.Params{Pools: `[{"name": "c2"}, {"name": "c3"}]`,
		Benchmarks: `[{"name": "1pd", "kind": "StorageBenchmark"}, {"name": "10pd", "kind": "StorageBenchmark"}]`})
	if err != nil {
		t.Fatal(err)
	}
	c := campaignOf(m, places)
	if len(c.Dimensions) != 3 || c.Dimensions[2].Name != "benchmark" || c.Dimensions[2].Values[0] != "1pd" || c.Places["wf-c2-none-1pd"]["pool"] != "c2" {
		t.Errorf("with the matrix: %+v", c)
	}
	if c := campaignOf(nil, places); len(c.Dimensions) != 3 || c.Dimensions[0].Values != nil {
		t.Errorf("without the matrix, the values are the report's to find: %+v", c.Dimensions)
	}
}

// A cell's history column reads the run's Regressed condition: regressed
// (marked), improved, steady, or not judged; nothing without one.
func TestHistoryOf(t *testing.T) {
	cond := func(status metav1.ConditionStatus, reason, msg string) *benchv1.BenchmarkStatusCommon {
		return &benchv1.BenchmarkStatusCommon{Conditions: []metav1.Condition{{Type: benchv1.ConditionRegressed, Status: status, Reason: reason, Message: msg}}}
	}
	for _, c := range []struct {
		st        *benchv1.BenchmarkStatusCommon
		want      string
		regressed bool
	}{
		{&benchv1.BenchmarkStatusCommon{}, "", false},
		{cond(metav1.ConditionTrue, benchv1.ReasonRegressed, "read_iops -20.0%"), "regressed: read_iops -20.0%", true},
		{cond(metav1.ConditionFalse, benchv1.ReasonImproved, "read_iops +9.1%"), "improved: read_iops +9.1%", false},
		{cond(metav1.ConditionFalse, benchv1.ReasonSteady, "no figure changed"), "steady: no figure changed", false},
		{cond(metav1.ConditionFalse, benchv1.ReasonOutlier, "run x looks like a one-off"), "one-off: run x looks like a one-off", false},
		{cond(metav1.ConditionUnknown, benchv1.ReasonTooFewRuns, "2 earlier runs"), "not judged: 2 earlier runs", false},
		{cond(metav1.ConditionUnknown, benchv1.ReasonHistoryUnavailable, "database down"), "not judged: database down", false},
	} {
		if got, regressed := historyOf(c.st); got != c.want || regressed != c.regressed {
			t.Errorf("historyOf(%v) = %q, %v; want %q, %v", c.st.Conditions, got, regressed, c.want, c.regressed)
		}
	}
}

// A cell that made no benchmark says why its pool went, as the manager
// told the Workflow (issue 44: the cell said only "not found").
func TestNotCreatedSaysWhy(t *testing.T) {
	told := []corev1.Event{wrappers.MakeEvent("Workflow", "s0").
		Said(benchv1.ReasonIdleExpired, "BenchmarkPool s0-e2-none: no benchmark or campaign cell used the pool for 60s (ttlSecondsAfterIdle): deleting it").Obj()}
	want := "the cell failed before its benchmarks were made: its BenchmarkPool s0-e2-none went: IdleExpired: no benchmark or campaign cell used the pool for 60s (ttlSecondsAfterIdle): deleting it"
	if got := notCreated(told, "s0-e2-none"); got != want {
		t.Errorf("notCreated = %q\nwant %q", got, want)
	}
	if got := notCreated(told, "s0-n2d-none"); got != "the cell failed before its benchmarks were made (its pool or tuning): its step says why" {
		t.Errorf("another cell's: %q", got)
	}
}

// Issue 44: S4's headlines read "1.1e+03 µs" and IOR, a bandwidth
// benchmark, was headlined by its latency; fi_msg_bw's small bandwidth
// read "0 MB/s".
func TestHeadlineFigures(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	ior := &benchv1.MPIBenchmark{Spec: benchv1.MPIBenchmarkSpec{Suite: benchv1.SuiteIOR}}
	ior.Status.Summary = benchv1.MPISummary{LatencyMicroseconds: f(1100), PeakBandwidthMBps: f(1511.25)}
	osu := &benchv1.MPIBenchmark{Spec: benchv1.MPIBenchmarkSpec{Suite: benchv1.SuiteOSU}}
	osu.Status.Summary = benchv1.MPISummary{LatencyMicroseconds: f(1100), PeakBandwidthMBps: f(12060)}
	fab := &benchv1.NetworkBenchmark{}
	fab.Status.Summary = benchv1.NetworkSummary{PeakBandwidthMBps: f(0.0012)}
	for _, tc := range []struct {
		b    benchmark
		want string
	}{
		{ior, "1,511 MB/s peak"},
		{osu, "1,100 µs, 12,060 MB/s peak"},
		{fab, "0.0012 MB/s peak"},
	} {
		if got := headline(tc.b); got != tc.want {
			t.Errorf("headline %q, want %q", got, tc.want)
		}
	}
}
