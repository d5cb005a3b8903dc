//go:build real

package real

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// S0 (seed 000), storage: the gce-pd preset's 8 fio workloads with real fio
// on raw block devices (volumeMode Block), one volume (1pd) against ten
// (10pd), on the seed's baseline and headline machine types, c2-standard-60
// and c3-highcpu-176, each the seed's GKE pool of one node. The volumes are
// loop devices with direct I/O over sparse files of this machine's one disk
// (1 GiB for 1pd, 10 x 256 MiB for 10pd, per machine type), the runs 3 s after 1 s
// of ramp (the seed's are 60 s after 10 s), without the seed's
// throughput-performance tuning (its vm.* settings are the whole machine's,
// which all nodes share). The c3 cell keeps the seed's expectation, at
// least 2.6x the c2 cell's 4k random read IOPS, which the same hardware
// cannot meet: it is held, and False. The report's c3 / c2 ratios per
// benchmark and 10pd / 1pd per pool equal the stored samples'.
func TestSeedS0Storage(t *testing.T) {
	needArgo(t)
	params := seedParams(t, "campaigns/s0-machine-types.yaml")
	var pools []map[string]any
	if err := json.Unmarshal([]byte(params["pools"]), &pools); err != nil || len(pools) != 3 {
		t.Fatalf("the seed's pools: %v (%d)", err, len(pools))
	}
	c2, c3 := fmt.Sprint(pools[0]["name"]), fmt.Sprint(pools[2]["name"])
	params["pools"] = mustJSON(t, []map[string]any{pools[0], pools[2]})
	params["title"] += " (real cluster: GKE node pools whose nodes are all this machine's hardware; the volumes loop devices on its one disk)"
	const class = "real-block"
	volumes := map[string][]string{} // machine type -> PVs
	for _, p := range []map[string]any{pools[0], pools[2]} {
		machine := fmt.Sprint(p["spec"].(map[string]any)["gke"].(map[string]any)["machineType"])
		volumes[machine] = blockVolumes(t, class, corev1.NodeSelectorRequirement{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{machine}},
			append([]string{"1Gi"}, slices.Repeat([]string{"256Mi"}, 10)...)...)
	}
	params["tunings"] = `[{"name": "none"}]`
	var entries []map[string]any
	if err := json.Unmarshal([]byte(params["benchmarks"]), &entries); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		spec := e["spec"].(map[string]any)
		v := spec["volumes"].(map[string]any)
		if v["volumeMode"] != "Block" {
			t.Fatalf("benchmark %s: volumeMode %v, want the seed's Block", e["name"], v["volumeMode"])
		}
		v["storageClassName"] = class
		v["size"] = map[string]string{"1pd": "1Gi", "10pd": "256Mi"}[fmt.Sprint(e["name"])]
		f := spec["fio"].(map[string]any)
		f["runtime"], f["rampTime"] = "3s", "1s"
	}
	params["benchmarks"] = mustJSON(t, entries)
	// The nodes share this machine's disk: one cell at a time.
	wf := submitCampaign(t, params, 1)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 40*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)

	medians := map[string]map[string]float64{} // pool/benchmark -> test/metric -> median
	var c3Expect *benchv1.StorageBenchmark
	for _, pool := range []string{c2, c3} {
		for _, bench := range []string{"1pd", "10pd"} {
			var b benchv1.StorageBenchmark
			key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + pool + "-none-" + bench}
			if err := k8s.Get(ctx(), key, &b); err != nil {
				t.Fatalf("cell %s/%s: %v", pool, bench, err)
			}
			if b.Status.State != benchv1.StateSucceeded {
				t.Fatalf("%s: %s, want Succeeded", key.Name, b.Status.State)
			}
			medians[pool+"/"+bench] = unsizedMedians(storedSamples(t, b.Status.ArtifactURI))
			if pool == c3 && bench == "1pd" {
				c3Expect = b.DeepCopy()
			}
		}
	}
	for machine, pvs := range volumes {
		if bound := boundOnce(t, pvs); len(bound) != 11 {
			t.Errorf("%s: %d of its 11 block volumes were bound (%v), want 1 for 1pd and 10 for 10pd", machine, len(bound), bound)
		}
	}
	perBench := checkAlongCSV(t, name, "pool", c3, func(group, test, metric, size string) (float64, bool) {
		bench := strings.TrimPrefix(group, "benchmark=")
		k := test + "/" + metric
		base, v := medians[c2+"/"+bench][k], medians[c3+"/"+bench][k]
		return v / base, base > 0 && v > 0 && size == ""
	})
	perPool := checkAlongCSV(t, name, "benchmark", "10pd", func(group, test, metric, size string) (float64, bool) {
		pool := strings.TrimPrefix(group, "pool=")
		k := test + "/" + metric
		one, ten := medians[pool+"/1pd"][k], medians[pool+"/10pd"][k]
		return ten / one, one > 0 && ten > 0 && size == ""
	})
	if want := 2 * 8; perBench < want || perPool < want { // 2 groups x 8 workloads, one IOPS figure each at least
		t.Errorf("the report compares %d figures c3 / c2 and %d 10pd / 1pd, want at least %d each", perBench, perPool, want)
	}

	// The seed's headline as an expectation across cells.
	const k = "randread-4k-qd256/read_iops"
	ratio := medians[c3+"/1pd"][k] / medians[c2+"/1pd"][k]
	cond := meta.FindStatusCondition(c3Expect.Status.Conditions, benchv1.ConditionMeetsExpectations)
	switch {
	case cond == nil:
		t.Errorf("%s has no %s condition", c3Expect.Name, benchv1.ConditionMeetsExpectations)
	case (cond.Status == "True") != (ratio >= 2.6):
		t.Errorf("%s: %s=%s (%s), but its read IOPS are %.3fx the c2 cell's (want at least 2.6x)", c3Expect.Name, cond.Type, cond.Status, cond.Message, ratio)
	default:
		t.Logf("c3 1pd against c2 1pd, 4k random read IOPS at QD256: %.3fx; %s=%s: %s", ratio, cond.Type, cond.Status, cond.Message)
	}
	for _, pool := range []string{c2, c3} {
		for _, bench := range []string{"1pd", "10pd"} {
			m := medians[pool+"/"+bench]
			t.Logf("%s %s: randread-4k-qd256 %.0f IOPS, randwrite-4k-qd256 %.0f IOPS, randread-4k-qd4 %.0f IOPS, read-1m-qd64 %.0f MiB/s, write-1m-qd64 %.0f MiB/s",
				pool, bench, m[k], m["randwrite-4k-qd256/write_iops"], m["randread-4k-qd4/read_iops"],
				m["read-1m-qd64/read_bw"], m["write-1m-qd64/write_bw"])
		}
	}
	page := readPublished(t, name, "html")
	for _, want := range []string{"pool: " + c3 + " / " + c2, "benchmark: 10pd / 1pd", "at least 2.6"} {
		if !strings.Contains(page, want) {
			t.Errorf("the published page has no %q", want)
		}
	}
	checkReleased(t, name)
	logCampaignTime(t, wf)
}

// S0 (seed 000), MPI: IMB PingPong and Allreduce, one rank on each node,
// for the three machine types of examples/campaigns/s0-mpi-machine-
// types.yaml (each the seed's GKE pool of two nodes, one cell at a time),
// with OpenMPI instead of Intel MPI (which cannot be built here; its OFI
// settings go with it), unbound (see S1), without the hpc-compute tuning
// (machine-wide settings), 3 repetitions after the warm-up. The report's
// c2d / c2 and c3 / c2 ratios per size equal the stored samples'.
func TestSeedS0MPI(t *testing.T) {
	needArgo(t)
	needImage(t, "IMAGE_MPI_OPENMPI")
	params := seedParams(t, "campaigns/s0-mpi-machine-types.yaml")
	pools := seedPools(t, params, 3)
	params["tunings"] = `[{"name": "none"}]`
	var entries []map[string]any
	if err := json.Unmarshal([]byte(params["benchmarks"]), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("the seed's benchmarks: %v", err)
	}
	spec := entries[0]["spec"].(map[string]any)
	if spec["suite"] != "imb" {
		t.Fatalf("the seed's benchmark runs %v, want imb", spec["suite"])
	}
	spec["mpi"] = map[string]any{"implementation": "OpenMPI"}
	spec["layout"].(map[string]any)["cpuBinding"] = map[string]any{"policy": "none"}
	spec["repetitions"] = 3
	params["benchmarks"] = mustJSON(t, entries)
	params["baselines"] = mustJSON(t, map[string]string{"pool": pools[0]})
	params["title"] = strings.Replace(params["title"], "Intel MPI", "OpenMPI (the seed's Intel MPI cannot be built here)", 1)
	wf := submitCampaign(t, params, 1)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 40*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)
	medians := map[string]map[string]float64{}
	for _, pool := range pools {
		var b benchv1.MPIBenchmark
		key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + pool + "-none-imb"}
		if err := k8s.Get(ctx(), key, &b); err != nil {
			t.Fatalf("cell %s: %v", pool, err)
		}
		if b.Status.State != benchv1.StateSucceeded {
			t.Fatalf("%s: %s, want Succeeded", key.Name, b.Status.State)
		}
		medians[pool] = sizedMedians(storedSamples(t, b.Status.ArtifactURI))
	}
	checked := 0
	for _, pool := range pools[1:] {
		checked += checkAlongCSV(t, name, "pool", pool, func(_, test, metric, size string) (float64, bool) {
			k := test + "/" + metric + "/" + size
			base, v := medians[pools[0]][k], medians[pool][k]
			return v / base, base > 0 && v > 0
		})
	}
	if want := 2 * 2 * 20; checked < want { // 2 pools x (PingPong, Allreduce) x sizes, one figure each at least
		t.Errorf("the report compares %d figures against %s, want at least %d", checked, pools[0], want)
	}
	for _, pool := range pools {
		m := medians[pool]
		t.Logf("%s: PingPong %.2f µs at 0 B, %.0f MB/s at 4 MiB; Allreduce %.2f µs at 8 B, %.0f µs at 4 MiB", pool,
			m["PingPong/latency/0"], m["PingPong/bandwidth/4194304"], m["Allreduce/latency/8"], m["Allreduce/latency/4194304"])
	}
	page := readPublished(t, name, "html")
	if want := "pool: " + pools[1] + " / " + pools[0] + " and " + pools[2] + " / " + pools[0]; !strings.Contains(page, want) {
		t.Errorf("the published page has no %q", want)
	}
	checkReleased(t, name)
	logCampaignTime(t, wf)
}
