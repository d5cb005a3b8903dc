//go:build real

package real

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// The seeds' campaigns (examples/campaigns) run under the real Argo
// controller on the real nodes (make campaigns-real). The seeds name GKE
// machine types; here each pool keeps its seed's name but is an existing
// pool over the two real nodes, so the "machine types" are the same
// hardware and the report's title says so. Each test checks the report's
// figures against the stored samples.

// seedParams are an example campaign's parameters, by name.
func seedParams(t *testing.T, example string) map[string]string {
	t.Helper()
	wf := &unstructured.Unstructured{}
	util.LoadExample(t, example, wf)
	params, _, err := unstructured.NestedSlice(wf.Object, "spec", "arguments", "parameters")
	if err != nil {
		t.Fatalf("examples/%s: %v", example, err)
	}
	out := map[string]string{}
	for _, p := range params {
		m, _ := p.(map[string]any)
		out[fmt.Sprint(m["name"])] = fmt.Sprint(m["value"])
	}
	return out
}

// onRealNodes makes a seed's pools existing pools over both real nodes,
// keeping the first n of its pools' names.
func onRealNodes(t *testing.T, params map[string]string, n int) []string {
	t.Helper()
	var pools []map[string]any
	if err := json.Unmarshal([]byte(params["pools"]), &pools); err != nil {
		t.Fatalf("the seed's pools: %v", err)
	}
	var names []string
	var kept []map[string]any
	for _, p := range pools[:min(n, len(pools))] {
		names = append(names, fmt.Sprint(p["name"]))
		kept = append(kept, map[string]any{"name": p["name"]})
	}
	params["pools"] = mustJSON(t, kept)
	params["poolDefaults"] = `{"provider": "existing", "existing": {"nodeSelector": {"benchwright.io/real-node": "true"}}}`
	params["title"] += " (real cluster: the pools are named after the seed's machine types, all on the same two real nodes)"
	return names
}

// S1 (seed 001): OSU latency and bandwidth with MPICH, two ranks on one
// node (same-vm) and one on each of two (two-vms), for two of the seed's
// machine types. The report's off-node / on-node latency ratio per pool
// and message size (the seed's 70-80x at small sizes on GCE) equals the
// stored samples' medians, and the page plots it against size.
func TestSeedS1(t *testing.T) {
	needArgo(t)
	needImage(t, "IMAGE_MPI_MPICH")
	params := seedParams(t, "campaigns/s1-machine-types.yaml")
	pools := onRealNodes(t, params, 2)
	// The two real nodes share this machine's two CPUs: bound to core 0
	// on each, both ranks would busy-poll one CPU and each message would
	// wait for a scheduler slice (3 ms, seen). Off-node ranks float here.
	params["benchmarks"] = strings.Replace(params["benchmarks"], `"layout": {"nodes": 2, "ranksPerNode": 1}`,
		`"layout": {"nodes": 2, "ranksPerNode": 1, "cpuBinding": {"policy": "none"}}`, 1)
	if !strings.Contains(params["benchmarks"], `"policy": "none"`) {
		t.Fatal("examples/campaigns/s1-machine-types.yaml: no two-node layout to unbind")
	}
	// Both pools need both nodes: one cell at a time.
	wf := submitCampaign(t, params, 1)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 40*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)

	// medians[pool][benchmark][test/metric/size] from the stored samples.
	medians := map[string]map[string]map[string]float64{}
	for _, pool := range pools {
		medians[pool] = map[string]map[string]float64{}
		for _, bench := range []string{"same-vm", "two-vms"} {
			var b benchv1.MPIBenchmark
			key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + pool + "-none-" + bench}
			if err := k8s.Get(ctx(), key, &b); err != nil {
				t.Fatalf("cell %s/%s: %v", pool, bench, err)
			}
			if b.Status.State != benchv1.StateSucceeded {
				t.Fatalf("MPIBenchmark %s: %s, want Succeeded", key.Name, b.Status.State)
			}
			medians[pool][bench] = sizedMedians(storedSamples(t, b.Status.ArtifactURI))
		}
	}
	checked := checkAlongCSV(t, name, "benchmark", "two-vms", func(group, test, metric, size string) (float64, bool) {
		pool := strings.TrimPrefix(group, "pool=")
		k := test + "/" + metric + "/" + size
		on, off := medians[pool]["same-vm"][k], medians[pool]["two-vms"][k]
		return off / on, on > 0 && off > 0
	})
	if want := 2 * 2 * 23; checked < want { // pools x (latency, bandwidth) x sizes 1 B..4 MiB
		t.Errorf("the report compares %d figures off-node / on-node, want at least %d", checked, want)
	}
	for _, pool := range pools {
		m := medians[pool]
		t.Logf("%s: osu_latency on-node %.2f / %.2f / %.2f µs, off-node %.2f / %.2f / %.2f µs at 8 B / 1 KiB / 1 MiB: off/on %.1fx / %.1fx / %.2fx; osu_bw off/on at 1 MiB %.2f",
			pool, m["same-vm"]["osu_latency/latency/8"], m["same-vm"]["osu_latency/latency/1024"], m["same-vm"]["osu_latency/latency/1048576"],
			m["two-vms"]["osu_latency/latency/8"], m["two-vms"]["osu_latency/latency/1024"], m["two-vms"]["osu_latency/latency/1048576"],
			m["two-vms"]["osu_latency/latency/8"]/m["same-vm"]["osu_latency/latency/8"],
			m["two-vms"]["osu_latency/latency/1024"]/m["same-vm"]["osu_latency/latency/1024"],
			m["two-vms"]["osu_latency/latency/1048576"]/m["same-vm"]["osu_latency/latency/1048576"],
			m["two-vms"]["osu_bw/bandwidth/1048576"]/m["same-vm"]["osu_bw/bandwidth/1048576"])
	}
	page := readPublished(t, name, "html")
	for _, want := range append([]string{"osu_latency: latency ratio vs message size", "osu_bw: bandwidth ratio vs message size"},
		"two-vms / same-vm, "+pools[0], "two-vms / same-vm, "+pools[1]) {
		if !strings.Contains(page, want) {
			t.Errorf("the published page has no %q", want)
		}
	}
	checkReleased(t, name)
	logCampaignTime(t, wf)
}

// sizedMedians are the medians of a run's counted repetitions, by
// "test/metric/size".
func sizedMedians(samples []results.Sample) map[string]float64 {
	values := map[string][]float64{}
	for _, s := range samples {
		if s.Labels[results.LabelWarmup] == "true" || s.Labels[results.LabelMsgSize] == "" {
			continue
		}
		k := s.Test + "/" + s.Metric + "/" + s.Labels[results.LabelMsgSize]
		values[k] = append(values[k], s.Value)
	}
	out := map[string]float64{}
	for k, v := range values {
		out[k] = median(v)
	}
	return out
}

// checkAlongCSV checks the published report's CSV: each line comparing a
// figure of value along dimension has the ratio want gives for its group,
// test, metric and message size (to 1e-9, relative; the CSV's numbers are
// exact). It returns how many lines it checked.
func checkAlongCSV(t *testing.T, campaign, dimension, value string, want func(group, test, metric, size string) (float64, bool)) int {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(readPublished(t, campaign, "csv"))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("the published CSV: %v (%d lines)", err, len(recs))
	}
	col := func(rec []string, name string) string {
		if i := slices.Index(recs[0], name); i >= 0 && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	checked := 0
	for _, rec := range recs[1:] {
		if col(rec, "dimension") != dimension || col(rec, "value") != value {
			continue
		}
		group, test, metric, size := col(rec, "group"), col(rec, "test"), col(rec, "metric"), col(rec, "msg_size")
		w, ok := want(group, test, metric, size)
		if !ok {
			continue
		}
		got, err := strconv.ParseFloat(col(rec, "ratio"), 64)
		if err != nil || math.Abs(got-w) > 1e-9*math.Abs(w) {
			t.Errorf("report: %s %s along %s, %s %s %s B: ratio %q, want %.6g from the stored samples", value, group, dimension, test, metric, size, col(rec, "ratio"), w)
		}
		checked++
	}
	t.Logf("the published report's %s ratios along %s (%d figures) equal the stored samples'", value, dimension, checked)
	return checked
}

// logCampaignTime logs the campaign's wall time and the share spent
// outside its benchmarks' runs (start to completion).
func logCampaignTime(t *testing.T, wf *unstructured.Unstructured) {
	t.Helper()
	var ran time.Duration
	for _, list := range []client.ObjectList{&benchv1.StorageBenchmarkList{}, &benchv1.MPIBenchmarkList{}, &benchv1.NetworkBenchmarkList{}} {
		if err := k8s.List(ctx(), list, client.InNamespace(campaignNamespace), client.MatchingLabels{benchv1.CampaignLabel: wf.GetName()}); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range items {
			if st := statusOf(o.(client.Object)); st.StartTime != nil && st.CompletionTime != nil {
				ran += st.CompletionTime.Sub(st.StartTime.Time)
			}
		}
	}
	took := workflowDuration(wf)
	t.Logf("campaign %s: %s from start to end; its benchmarks ran %s (start to completion, summed): %.0f%% of the time outside them",
		wf.GetName(), took.Round(time.Second), ran.Round(time.Second), 100*(1-ran.Seconds()/took.Seconds()))
}
