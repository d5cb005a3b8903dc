//go:build real

package real

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// S3 (seed 003), the tuning ladder, as far as it can be climbed here: the
// example's osu_latency between the two nodes of its first GKE pool (one
// rank each, over TCP, MPICH instead of Intel MPI, unbound as in S1), up the
// rungs a real node's settings allow: untuned, then seed 003's "increase
// tcp_mem" (the example's tcp_rmem and tcp_wmem), then those with the
// network-latency preset's TCP fast open. The example's other rungs are
// GKE's (compact placement, SMT off: this machine's CPUs have no SMT), and
// busy polling is the whole machine's setting, which all nodes share: none
// can be set on these nodes. The rungs are real sysctls set by the real
// tuner in each node's network namespace. The report compares each rung
// with the first and with the one before, and its ladder table lists each
// step's recorded node settings; its ratios equal the stored samples'.
func TestSeedS3(t *testing.T) {
	needArgo(t)
	needImage(t, "IMAGE_MPI_MPICH")
	params := seedParams(t, "campaigns/s3-tuning-ladder.yaml")
	title := params["title"]
	seedPools(t, params, 1)
	params["sharePool"] = "true"
	var tunings []campaignTuning
	if err := json.Unmarshal([]byte(params["tunings"]), &tunings); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tunings, func(x campaignTuning) bool { return x.Name == "tcp" })
	if i < 0 {
		t.Fatal("examples/campaigns/s3-tuning-ladder.yaml has no tcp tuning")
	}
	tcpMemory := inNodeNetns(tunings[i].Spec.Sysctls)
	if len(tcpMemory) != 2 {
		t.Fatalf("the example's tcp tuning has %v in a node's network namespace, want tcp_rmem and tcp_wmem", tcpMemory)
	}
	fastOpen := append(slices.Clone(tcpMemory), benchv1.Sysctl{Name: "net.ipv4.tcp_fastopen", Value: "3"})
	rungs := []string{"none", "tcp-memory", "tcp"}
	params["tunings"] = mustJSON(t, []map[string]any{
		{"name": rungs[0]},
		{"name": rungs[1], "spec": map[string]any{"sysctls": tcpMemory}},
		{"name": rungs[2], "spec": map[string]any{"sysctls": fastOpen}},
	})
	original := readSysctls(t, fastOpen)
	var entries []map[string]any
	if err := json.Unmarshal([]byte(params["benchmarks"]), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("the example's benchmarks: %v", err)
	}
	spec := entries[0]["spec"].(map[string]any)
	spec["mpi"] = map[string]any{"implementation": "MPICH"}
	spec["layout"].(map[string]any)["cpuBinding"] = map[string]any{"policy": "none"}
	params["benchmarks"] = mustJSON(t, entries)
	params["title"] = title + " (real cluster: the seed's first GKE pool, its two nodes this machine's hardware; MPICH over TCP, the rungs a node's network namespace can take; placement and SMT are GKE's)"
	wf := submitCampaign(t, params, 1)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 40*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)
	pool := "default"
	medians := map[string]map[string]float64{}
	for _, rung := range rungs {
		var b benchv1.MPIBenchmark
		key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + pool + "-" + rung + "-osu"}
		if err := k8s.Get(ctx(), key, &b); err != nil {
			t.Fatalf("cell %s: %v", rung, err)
		}
		if b.Status.State != benchv1.StateSucceeded {
			t.Fatalf("%s: %s, want Succeeded", key.Name, b.Status.State)
		}
		medians[rung] = sizedMedians(storedSamples(t, b.Status.ArtifactURI))
	}
	if checked := checkLadderCSV(t, name, "tuning", rungs, medians); checked < 2*11 { // 2 rungs x sizes 0 B..1 KiB
		t.Errorf("the report compares %d figures along the ladder, want at least %d", checked, 2*11)
	}
	var line []string
	for _, rung := range rungs {
		line = append(line, rung+" "+strconv.FormatFloat(medians[rung]["osu_latency/latency/8"], 'f', 2, 64)+" µs")
	}
	t.Logf("the ladder, osu_latency at 8 B: %s (seed 003 on GCE: 28 -> 8 µs over its six rungs)", strings.Join(line, " -> "))
	page := readPublished(t, name, "html")
	for _, want := range []string{"tuning: tcp-memory / none and tcp / none", "each step also against the step before",
		"firewall rules", "tuning none → tcp-memory", "tuning tcp-memory → tcp"} {
		if !strings.Contains(page, want) {
			t.Errorf("the published page has no %q", want)
		}
	}
	checkReleased(t, name)
	if after := readSysctls(t, fastOpen); fmt.Sprint(after) != fmt.Sprint(original) {
		t.Errorf("the nodes' sysctls after the campaign %v, before %v", after, original)
	}
	logCampaignTime(t, wf)
}

// campaignTuning is an entry of a campaign's tunings parameter.
type campaignTuning struct {
	Name string                    `json:"name"`
	Spec benchv1.TuningProfileSpec `json:"spec"`
}

// checkLadderCSV checks the published CSV's lines along a ladder dimension:
// each rung's ratio to the first rung and its step_ratio to the rung before
// are the stored medians' (by value, "test/metric/size"), turned around for
// a speedup of a lower-is-better figure, to 1e-9 relative. It returns how
// many lines it checked.
func checkLadderCSV(t *testing.T, campaign, dimension string, rungs []string, medians map[string]map[string]float64) int {
	t.Helper()
	recs, col := publishedCSV(t, campaign)
	close := func(got string, want float64) bool {
		g, err := strconv.ParseFloat(got, 64)
		return err == nil && math.Abs(g-want) <= 1e-9*math.Abs(want)
	}
	checked := 0
	for _, rec := range recs[1:] {
		r := slices.Index(rungs, col(rec, "value"))
		if col(rec, "dimension") != dimension || r <= 0 {
			continue
		}
		k := col(rec, "test") + "/" + col(rec, "metric") + "/" + col(rec, "msg_size")
		v, first, before := medians[rungs[r]][k], medians[rungs[0]][k], medians[rungs[r-1]][k]
		if v <= 0 || first <= 0 || before <= 0 {
			continue
		}
		toFirst, toBefore := v/first, v/before
		if col(rec, "ratio_kind") == "speedup" && col(rec, "lower_is_better") == "true" {
			toFirst, toBefore = 1/toFirst, 1/toBefore
		}
		if !close(col(rec, "ratio"), toFirst) || !close(col(rec, "step_ratio"), toBefore) {
			t.Errorf("report: %s %s: ratio %s and step ratio %s, want %.6g and %.6g from the stored samples",
				rungs[r], k, col(rec, "ratio"), col(rec, "step_ratio"), toFirst, toBefore)
		}
		checked++
	}
	t.Logf("the published report's ladder along %s (%d figures) equals the stored samples'", dimension, checked)
	return checked
}
