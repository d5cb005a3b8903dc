//go:build real

package real

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
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
// controller, their pools GKE node pools as the seeds give them (provider
// gke, machine types, node counts, compact placement, SMT off) through the
// real cluster's GKE endpoint: each pool's nodes join this cluster as real
// nodes, so every "machine type" is this machine's hardware, and the
// report's title says so. Only what this machine cannot do is changed in
// the benchmarks (each test says what). Each test checks the report's
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

// seedPools keeps the first n of a seed's GKE pools, as the seed gives them,
// and returns their names; the title says where their nodes are.
func seedPools(t *testing.T, params map[string]string, n int) []string {
	t.Helper()
	if !strings.Contains(params["poolDefaults"], `"provider": "gke"`) {
		t.Fatalf("the seed's poolDefaults are not GKE's: %s", params["poolDefaults"])
	}
	var pools []map[string]any
	if err := json.Unmarshal([]byte(params["pools"]), &pools); err != nil {
		t.Fatalf("the seed's pools: %v", err)
	}
	var names []string
	for _, p := range pools[:min(n, len(pools))] {
		names = append(names, fmt.Sprint(p["name"]))
	}
	if n < len(pools) {
		params["pools"] = mustJSON(t, pools[:n])
	}
	params["title"] += " (real cluster: GKE node pools whose nodes are all this machine's hardware)"
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
	pools := seedPools(t, params, 2)
	// The two real nodes share this machine's two CPUs: bound to core 0
	// on each, both ranks would busy-poll one CPU and each message would
	// wait for a scheduler slice (3 ms, seen). Off-node ranks float here.
	params["benchmarks"] = strings.Replace(params["benchmarks"], `"layout": {"nodes": 2, "ranksPerNode": 1}`,
		`"layout": {"nodes": 2, "ranksPerNode": 1, "cpuBinding": {"policy": "none"}}`, 1)
	if !strings.Contains(params["benchmarks"], `"policy": "none"`) {
		t.Fatal("examples/campaigns/s1-machine-types.yaml: no two-node layout to unbind")
	}
	// Both pools' nodes share this machine's two CPUs: one cell at a time.
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
// test, metric and message size (value / baseline's; turned around for a
// speedup of a lower-is-better figure), to 1e-9 relative: the CSV's numbers
// are exact. It returns how many lines it checked.
func checkAlongCSV(t *testing.T, campaign, dimension, value string, want func(group, test, metric, size string) (float64, bool)) int {
	t.Helper()
	recs, col := publishedCSV(t, campaign)
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
		if col(rec, "ratio_kind") == "speedup" && col(rec, "lower_is_better") == "true" {
			w = 1 / w // a speedup of a lower-is-better figure divides the other way
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

// publishedCSV is the campaign's published CSV (its header first) and a
// reader of a line's column by name.
func publishedCSV(t *testing.T, campaign string) ([][]string, func(rec []string, name string) string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(readPublished(t, campaign, "csv"))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("the published CSV: %v (%d lines)", err, len(recs))
	}
	return recs, func(rec []string, name string) string {
		if i := slices.Index(recs[0], name); i >= 0 && i < len(rec) {
			return rec[i]
		}
		return ""
	}
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

// S4 (seed 004): the I/O gap between two node types, the seed's GKE pools
// of one node each (knl, haswell), one cell at a time. dd in the
// three modes by 1, 2 and 4 processes; IOR a file per process and one
// shared file by 1 and 2 ranks (a benchmark each: the campaign's benchmark
// dimension); dd twice more at two declared CPU frequencies: this machine
// has no cpufreq (no /sys/devices/system/cpu/cpu0/cpufreq), so the seed's
// frequency sweep is a label (x-declared-cpu-mhz), not a setting, and the
// report's fit says "declared". The report's haswell / knl ratios equal the
// stored samples', and it draws bandwidth against processes.
func TestSeedS4(t *testing.T) {
	needArgo(t)
	needImage(t, "IMAGE_MPI_OPENMPI")
	var dd []map[string]any
	for _, mode := range []struct{ name, op, flag string }{
		{"write-buffered", "write", ""}, {"write-dsync", "write", "oflag=dsync"}, {"write-direct", "write", "oflag=direct"},
		{"read-buffered", "read", ""}, {"read-direct", "read", "iflag=direct"},
	} {
		for _, n := range []int{1, 2, 4} {
			test := map[string]any{"name": fmt.Sprintf("%s-%d", mode.name, n), "operation": mode.op, "blockSize": "1M", "count": 64, "processes": n}
			if k, v, ok := strings.Cut(mode.flag, "="); ok {
				test[k] = v
			}
			dd = append(dd, test)
		}
	}
	ddSpec := func() map[string]any {
		return map[string]any{"repetitions": 3, "volumes": map[string]any{"emptyDir": map[string]any{}}, "dd": map[string]any{"tests": dd}}
	}
	ior := func(ranks int, fpp bool) map[string]any {
		return map[string]any{"suite": "ior", "tests": []string{"write", "read"},
			"layout":      map[string]any{"nodes": 1, "ranksPerNode": ranks, "cpuBinding": map[string]any{"policy": "none"}},
			"mpi":         map[string]any{"implementation": "OpenMPI"},
			"ior":         map[string]any{"api": "POSIX", "filePerProcess": fpp, "transferSize": "1m", "blockSize": "32m", "fsync": true},
			"repetitions": 3}
	}
	benchmarks := []map[string]any{
		{"name": "dd", "kind": "StorageBenchmark", "spec": ddSpec()},
		{"name": "ior-fpp-1", "kind": "MPIBenchmark", "spec": ior(1, true)},
		{"name": "ior-fpp-2", "kind": "MPIBenchmark", "spec": ior(2, true)},
		{"name": "ior-shared-1", "kind": "MPIBenchmark", "spec": ior(1, false)},
		{"name": "ior-shared-2", "kind": "MPIBenchmark", "spec": ior(2, false)},
		{"name": "dd-f1400", "kind": "StorageBenchmark", "labels": map[string]string{"benchwright.io/x-declared-cpu-mhz": "1400"}, "spec": ddSpec()},
		{"name": "dd-f2100", "kind": "StorageBenchmark", "labels": map[string]string{"benchwright.io/x-declared-cpu-mhz": "2100"}, "spec": ddSpec()},
	}
	params := seedParams(t, "campaigns/s4-node-types.yaml")
	seedPools(t, params, 2)
	params["tunings"] = `[{"name": "none"}]`
	params["benchmarks"] = mustJSON(t, benchmarks)
	params["baselines"] = `{"pool": "knl"}`
	params["title"] += "; the CPU frequencies are declared, not set: no cpufreq here"
	// The nodes share this machine's disk and CPUs: one cell at a time.
	wf := submitCampaign(t, params, 1)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 60*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)

	medians := map[string]map[string]float64{} // pool/benchmark -> test/metric/ -> median
	for _, pool := range []string{"knl", "haswell"} {
		for _, b := range benchmarks {
			obj := map[string]client.Object{"StorageBenchmark": &benchv1.StorageBenchmark{}, "MPIBenchmark": &benchv1.MPIBenchmark{}}[b["kind"].(string)]
			key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + pool + "-none-" + b["name"].(string)}
			if err := k8s.Get(ctx(), key, obj); err != nil {
				t.Fatalf("cell %s/%s: %v", pool, b["name"], err)
			}
			st := statusOf(obj)
			if st.State != benchv1.StateSucceeded {
				t.Fatalf("%s: %s, want Succeeded", key.Name, st.State)
			}
			medians[pool+"/"+b["name"].(string)] = unsizedMedians(storedSamples(t, st.ArtifactURI))
		}
	}
	checked := checkAlongCSV(t, name, "pool", "haswell", func(group, test, metric, size string) (float64, bool) {
		bench := strings.TrimPrefix(group, "benchmark=")
		k := test + "/" + metric
		knl, haswell := medians["knl/"+bench][k], medians["haswell/"+bench][k]
		return haswell / knl, knl > 0 && haswell > 0 && size == ""
	})
	if checked < 2*15+4*2 { // dd's write_bw/read_bw per test at least, IOR's write and read bandwidth
		t.Errorf("the report compares %d figures haswell / knl, want at least %d", checked, 2*15+4*2)
	}
	for _, pool := range []string{"knl", "haswell"} {
		m := medians[pool+"/dd"]
		t.Logf("%s: dd write MiB/s buffered %.0f / %.0f / %.0f, dsync %.0f / %.0f / %.0f, direct %.0f / %.0f / %.0f by 1 / 2 / 4 processes; IOR write MiB/s fpp %.0f / %.0f, shared %.0f / %.0f by 1 / 2 ranks",
			pool, m["write-buffered-1/write_bw"], m["write-buffered-2/write_bw"], m["write-buffered-4/write_bw"],
			m["write-dsync-1/write_bw"], m["write-dsync-2/write_bw"], m["write-dsync-4/write_bw"],
			m["write-direct-1/write_bw"], m["write-direct-2/write_bw"], m["write-direct-4/write_bw"],
			medians[pool+"/ior-fpp-1"]["write/bandwidth"], medians[pool+"/ior-fpp-2"]["write/bandwidth"],
			medians[pool+"/ior-shared-1"]["write/bandwidth"], medians[pool+"/ior-shared-2"]["write/bandwidth"])
	}
	page := readPublished(t, name, "html")
	for _, want := range []string{"write_bw vs processes", "bandwidth vs processes", ">knl-none-ior-fpp: write", ">haswell-none-ior-shared: write",
		"declared cpu mhz"} {
		if !strings.Contains(page, want) {
			t.Errorf("the published page has no %q", want)
		}
	}
	checkReleased(t, name)
	logCampaignTime(t, wf)
}

// unsizedMedians are the medians of a run's counted repetitions of figures
// without message sizes, by "test/metric".
func unsizedMedians(samples []results.Sample) map[string]float64 {
	values := map[string][]float64{}
	for _, s := range samples {
		if s.Labels[results.LabelWarmup] == "true" || s.Labels[results.LabelMsgSize] != "" || s.Labels["source"] == "sampler" {
			continue
		}
		values[s.Test+"/"+s.Metric] = append(values[s.Test+"/"+s.Metric], s.Value)
	}
	out := map[string]float64{}
	for k, v := range values {
		out[k] = median(v)
	}
	return out
}

// S2 (seed 002): fabtests from chiplet 0 to itself (CPU 0 to CPU 1: this
// machine has one chiplet) on two nodes of the seed's GKE pool of five, and
// from one to the other; osu_bw
// pinned to CPUs 0 and 1 for comparison. The report has the seed's box
// plots per test and scope, pooled over the nodes, and its figures equal
// the stored samples'.
func TestSeedS2(t *testing.T) {
	needArgo(t)
	needImage(t, "IMAGE_MPI_OPENMPI")
	params := seedParams(t, "campaigns/s2-chiplets.yaml")
	seedPools(t, params, 1)
	var entries []map[string]any
	if err := json.Unmarshal([]byte(params["benchmarks"]), &entries); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		spec := e["spec"].(map[string]any)
		spec["repetitions"], spec["warmupRepetitions"] = 3, 0
		delete(spec, "timeouts")
		switch e["kind"] {
		case "NetworkBenchmark":
			spec["nodes"] = 2
			// One chiplet, one socket here: no inter-socket pair.
			spec["pairs"].(map[string]any)["scopes"] = []string{"intraSocket", "interNode"}
			f := spec["fabtests"].(map[string]any)
			f["iterations"], f["warmupIterations"] = 100, 100
		case "MPIBenchmark":
			spec["layout"].(map[string]any)["cpuBinding"] = map[string]any{"policy": "explicit", "cpus": []int{0, 1}}
			spec["warmupIterations"] = 100
		}
	}
	params["benchmarks"] = mustJSON(t, entries)
	wf := submitCampaign(t, params, 1)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 40*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)
	var nb benchv1.NetworkBenchmark
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: campaignNamespace, Name: name + "-c3-spr-none-fabtests"}, &nb); err != nil {
		t.Fatal(err)
	}
	if nb.Status.State != benchv1.StateSucceeded {
		t.Fatalf("fabtests: %s", nb.Status.State)
	}
	samples := storedSamples(t, nb.Status.ArtifactURI)
	pairs := map[string]bool{}
	for _, s := range samples {
		if p := s.Labels["pair"]; p != "" {
			pairs[p+" "+s.Labels["scope"]] = true
		}
	}
	t.Logf("fabtests pairs: %v", slices.Sorted(maps.Keys(pairs)))
	if len(pairs) != 3 { // chiplet 0 to itself on each node, and node 0 to node 1
		t.Errorf("%d pairs, want chiplet 0 -> 0 on each node and one inter-node", len(pairs))
	}
	page := readPublished(t, name, "html")
	for _, want := range []string{"fi_msg_bw: bandwidth, intraSocket, pooled over nodes", "fi_rma_bw: bandwidth, interNode, pooled over nodes",
		"fi_rdm_tagged_bw: bandwidth, intraSocket, pooled over nodes", "chiplet 0 -&gt; 0"} {
		if !strings.Contains(page, want) {
			t.Errorf("the published page has no %q", want)
		}
	}
	checkReleased(t, name)
	logCampaignTime(t, wf)
}
