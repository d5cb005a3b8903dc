//go:build real

package real

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// A campaign under the real Argo controller (make real-cluster ARGO=1) with
// GKE pools, as a user submits it to GKE: two machine types, each a GKE node
// pool of one node, which joins this cluster as a real node (the real
// cluster's GKE endpoint, hack/realgke) x two tunings (none, and the
// network-latency example's net.* sysctls: the others are this machine's
// own) x a StorageBenchmark and an MPIBenchmark (on-node). Two cells at
// once, one node each (the endpoint's two slots). The manager restarts
// mid-run. Checks what a user relies on: the Workflow Succeeded; each
// cell's pool was a node of its own that joined, was tuned and ran its
// benchmarks; every benchmark Succeeded with its status figures equal to its
// stored samples; the published report's comparison equals the ratios of
// those samples; every pool and tuning is gone, and so are their nodes,
// with nothing of them left on this machine.
func TestArgoCampaignMatrix(t *testing.T) {
	needArgo(t)
	needGKE(t, 2)
	needImage(t, "IMAGE_MPI_OPENMPI")
	sysctls := campaignSysctls(t)

	osu := &benchv1.MPIBenchmark{}
	util.LoadExample(t, "quickstart/osu-latency.yaml", osu)
	osu.Spec.Repetitions, osu.Spec.WarmupRepetitions = 1, 0
	osu.Spec.NodeSelector = nil // the campaign places it on its cell's pool
	benchmarks := []map[string]any{
		{"name": "fio", "kind": "StorageBenchmark", "spec": fioSpec()},
		{"name": "osu", "kind": "MPIBenchmark", "spec": specOf(t, osu.Spec)},
	}
	tunings := []map[string]any{{"name": "none"}, {"name": "network-latency", "spec": map[string]any{"sysctls": sysctls}}}
	wf := submitCampaign(t, map[string]string{
		"pools": `[{"name": "m1", "spec": {"gke": {"machineType": "c2-standard-8"}}},
		           {"name": "m2", "spec": {"gke": {"machineType": "n2d-standard-8"}}}]`,
		"poolDefaults": `{"provider": "gke", "gke": {"nodeCount": 1}}`,
		"tunings":      mustJSON(t, tunings),
		"benchmarks":   mustJSON(t, benchmarks),
		"title":        "real Argo: 2 GKE pools x 2 tunings x 2 kinds",
	}, 2)
	name := wf.GetName()
	tuned := watchTunedNodes(t, name)
	restartManagerMidRun(t, name)
	if phase := waitWorkflow(t, wf, 30*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)

	var ran time.Duration
	iops := map[string]float64{} // cell -> fio's read IOPS, from the stored samples
	ranOn := map[string]bool{}   // the nodes the benchmarks ran on
	for _, pool := range []string{"m1", "m2"} {
		for _, tuning := range []string{"none", "network-latency"} {
			cell := pool + "-" + tuning
			for _, b := range []client.Object{&benchv1.StorageBenchmark{}, &benchv1.MPIBenchmark{}} {
				short := map[string]string{"StorageBenchmark": "fio", "MPIBenchmark": "osu"}[kindName(b)]
				key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + cell + "-" + short}
				if err := k8s.Get(ctx(), key, b); err != nil {
					t.Fatalf("cell %s: %v", cell, err)
				}
				st := statusOf(b)
				if st.State != benchv1.StateSucceeded {
					t.Errorf("%s %s: %s, want Succeeded", kindName(b), key.Name, st.State)
					continue
				}
				if st.Retries != 0 {
					t.Errorf("%s %s ran %d repetition(s) again: nothing may run twice across the manager's restart", kindName(b), key.Name, st.Retries)
				}
				if st.StartTime != nil && st.CompletionTime != nil {
					ran += st.CompletionTime.Sub(st.StartTime.Time)
				}
				// The cell's pool is GKE node pool NAME-CELL: its node is
				// gke-real-NAME-CELL-..., joined for it.
				for _, n := range st.Nodes {
					ranOn[n] = true
					if !strings.HasPrefix(n, "gke-real-"+name+"-"+cell+"-") {
						t.Errorf("%s %s ran on node %s, not on a node of its cell's GKE pool", kindName(b), key.Name, n)
					}
				}
				samples := storedSamples(t, st.ArtifactURI)
				if sb, ok := b.(*benchv1.StorageBenchmark); ok {
					checkFiguresEqual(t, sb, summarize(samples))
					iops[cell] = medianOf(samples, "randread-4k", "read_iops")
				} else if len(samples) == 0 {
					t.Errorf("%s %s stored no samples", kindName(b), key.Name)
				}
				wantTuning := ""
				if tuning != "none" {
					wantTuning = name + "-" + cell
					if node := tuned.of(wantTuning); !strings.HasPrefix(node, "gke-real-"+name+"-"+cell+"-") {
						t.Errorf("TuningProfile %s was Tuned on %q, not on its cell's GKE node", wantTuning, node)
					}
				}
				if got := placementOf(b); got[0] != name+"-"+cell || got[1] != wantTuning {
					t.Errorf("%s %s ran on pool %q tuning %q, want %q %q", kindName(b), key.Name, got[0], got[1], name+"-"+cell, wantTuning)
				}
			}
		}
	}
	if len(ranOn) != 4 {
		t.Errorf("the benchmarks ran on %d nodes (%v), want a node of its own per cell", len(ranOn), slices.Sorted(maps.Keys(ranOn)))
	}
	checkReportRatios(t, name, iops)
	if md := readPublished(t, name, "md"); !strings.Contains(md, "cell by cell, with its headline figure") || strings.Count(md, "| Succeeded ") != 8 {
		t.Errorf("the published report does not list the 8 cells' benchmarks Succeeded:\n%s", head(md, 30))
	}
	checkReleased(t, name)
	checkGKENodesGone(t, ranOn)
	took := workflowDuration(wf)
	t.Logf("campaign %s: %s from start to end; its benchmarks ran %s (start to completion, summed): makespan / sum %.2f",
		name, took.Round(time.Second), ran.Round(time.Second), took.Seconds()/ran.Seconds())
	t.Logf("kubectl get storagebenchmarks,mpibenchmarks -n %s -L benchwright.io/campaign-pool,benchwright.io/campaign-tuning:\n%s", campaignNamespace,
		kc.Try("get", "storagebenchmarks,mpibenchmarks", "-n", campaignNamespace, "-l", benchv1.CampaignLabel+"="+name,
			"-L", "benchwright.io/campaign-pool,benchwright.io/campaign-tuning"))
	t.Logf("argo get %s:\n%s", name, argoCLI("get", name, "-n", campaignNamespace))
}

// restartManagerMidRun deletes the manager's pod once a benchmark of the
// campaign runs: its Deployment starts another, and the campaign goes on.
func restartManagerMidRun(t *testing.T, campaign string) {
	t.Helper()
	util.WaitFor(t, 10*time.Minute, "a benchmark of "+campaign+" Running", func() (bool, string) {
		var list benchv1.StorageBenchmarkList
		if err := k8s.List(ctx(), &list, client.InNamespace(campaignNamespace), client.MatchingLabels{benchv1.CampaignLabel: campaign}); err != nil {
			return false, err.Error()
		}
		for _, b := range list.Items {
			if b.Status.State == benchv1.StateRunning {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d StorageBenchmark(s), none Running", len(list.Items))
	})
	t.Logf("the manager restarted mid-campaign: %s", strings.TrimSpace(kc.Try("delete", "pod", "-n", env["SYSTEM_NAMESPACE"],
		"-l", "app.kubernetes.io/component=manager", "--wait=false")))
}

// A failed cell does not stop the others, the campaign ends Failed naming
// it, and the report lists it; once the fault is gone, argo retry runs the
// failed cells alone again (the others' benchmarks do not run twice) and
// the report covers every cell. The pools share their tunings (sharePool:
// each pool's two tunings one after another on it, then the pool released).
// The fault: the second pool's node is cordoned, so its fio cannot start
// (timeouts.start).
func TestArgoCampaignFailedCellRetried(t *testing.T) {
	needArgo(t)
	good, bad := nodes()[0], nodes()[1]
	// Cordoned, the node takes no new pod but a DaemonSet's (the tuner's):
	// the bad cells' tunings apply, their fio pods stay Pending.
	cordon := func(on bool) {
		kc.Run(t, map[bool]string{true: "cordon", false: "uncordon"}[on], bad)
	}
	cordon(true)
	t.Cleanup(func() {
		_ = exec.Command(env["KUBECTL"], "--kubeconfig", env["KUBECONFIG"], "uncordon", bad).Run()
	})
	sysctls := campaignSysctls(t)
	original := readSysctls(t, sysctls)

	spec := fioSpec()
	spec["timeouts"] = map[string]any{"start": "30s"}
	pools := []map[string]any{
		{"name": "good", "spec": map[string]any{"existing": map[string]any{"nodeSelector": map[string]any{"kubernetes.io/hostname": good}}}},
		{"name": "bad", "spec": map[string]any{"existing": map[string]any{"nodeSelector": map[string]any{"kubernetes.io/hostname": bad}}}},
	}
	wf := submitCampaign(t, map[string]string{
		"pools":        mustJSON(t, pools),
		"poolDefaults": `{"provider": "existing"}`,
		"tunings":      mustJSON(t, []map[string]any{{"name": "none"}, {"name": "network-latency", "spec": map[string]any{"sysctls": sysctls}}}),
		"sharePool":    "true",
		"benchmarks":   mustJSON(t, []map[string]any{{"name": "fio", "kind": "StorageBenchmark", "spec": spec}}),
		"title":        "real Argo: failed cells, retried",
	}, 0)
	name := wf.GetName()
	if phase := waitWorkflow(t, wf, 10*time.Minute); phase != "Failed" {
		t.Fatalf("Workflow %s %s, want Failed (the bad cells): %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)
	key := func(pool, tuning string) client.ObjectKey {
		return client.ObjectKey{Namespace: campaignNamespace, Name: name + "-" + pool + "-" + tuning + "-fio"}
	}
	tunings := []string{"none", "network-latency"}
	first := map[string]benchv1.StorageBenchmark{}
	for _, pool := range []string{"good", "bad"} {
		want := map[string]benchv1.BenchmarkState{"good": benchv1.StateSucceeded, "bad": benchv1.StateFailed}[pool]
		for _, tuning := range tunings {
			var b benchv1.StorageBenchmark
			if err := k8s.Get(ctx(), key(pool, tuning), &b); err != nil || b.Status.State != want {
				t.Fatalf("%s: %v %s, want %s (a failed cell stops no other)", key(pool, tuning).Name, err, b.Status.State, want)
			}
			first[pool+"/"+tuning] = b
		}
	}
	msgs := failedCellMessages(wf)
	if !strings.Contains(msgs, key("bad", "none").Name) || !strings.Contains(msgs, key("bad", "network-latency").Name) || strings.Contains(msgs, "-good-") {
		t.Errorf("the failed steps' messages do not name the bad cells' benchmarks alone:\n%s", msgs)
	}
	report := readPublished(t, name, "md")
	if !strings.Contains(report, "2 of them failed") || strings.Count(report, "| Failed ") != 2 || !strings.Contains(report, "Timeout: ") {
		t.Errorf("the published report's cells do not list the 2 failed benchmarks with why:\n%s", head(report, 40))
	}
	checkReleased(t, name)

	cordon(false)
	t.Logf("argo retry %s:\n%s", name, argoCLI("retry", name, "-n", campaignNamespace))
	if phase := waitWorkflow(t, wf, 10*time.Minute); phase != "Succeeded" {
		t.Fatalf("Workflow %s after argo retry: %s: %s", name, phase, workflowMessage(wf))
	}
	logCells(t, wf)
	for _, tuning := range tunings {
		was := first["good/"+tuning]
		var again benchv1.StorageBenchmark
		if err := k8s.Get(ctx(), key("good", tuning), &again); err != nil {
			t.Fatal(err)
		}
		if again.UID != was.UID || !again.Status.CompletionTime.Equal(was.Status.CompletionTime) {
			t.Errorf("%s ran again: uid %s -> %s, completed %v -> %v", again.Name, was.UID, again.UID, was.Status.CompletionTime, again.Status.CompletionTime)
		}
		failed := first["bad/"+tuning]
		var rerun benchv1.StorageBenchmark
		if err := k8s.Get(ctx(), key("bad", tuning), &rerun); err != nil || rerun.Status.State != benchv1.StateSucceeded || rerun.UID == failed.UID {
			t.Errorf("%s after the retry: %v, state %s, uid %s (was %s): want a new one, Succeeded", key("bad", tuning).Name, err, rerun.Status.State, rerun.UID, failed.UID)
		}
	}
	report = readPublished(t, name, "md")
	if strings.Contains(report, "of them failed") || strings.Count(report, "| Succeeded ") != 4 {
		t.Errorf("the report after the retry does not cover the 4 cells:\n%s", head(report, 40))
	}
	checkReleased(t, name)
	if after := readSysctls(t, sysctls); fmt.Sprint(after) != fmt.Sprint(original) {
		t.Errorf("the nodes' sysctls after the campaign %v, before %v", after, original)
	}
}

func needArgo(t testing.TB) {
	t.Helper()
	if os.Getenv("REAL_ARGO") == "" {
		t.Skip("REAL_ARGO is not set (make test-real-argo)")
	}
	if env["ARGO_ENABLED"] != "1" {
		t.Fatal("the real cluster runs without Argo: bring it up with ARGO=1 (make test-real-argo does)")
	}
}

// fioSpec is a short fio StorageBenchmark on an emptyDir.
func fioSpec() map[string]any {
	return map[string]any{
		"repetitions": 1,
		"volumes":     map[string]any{"emptyDir": map[string]any{}},
		"fio": map[string]any{
			"size": "32M", "runtime": "3s",
			"jobs": []map[string]any{{"name": "randread-4k", "rw": "randread", "blockSize": "4k", "ioDepth": 8}},
		},
	}
}

// specOf is a typed spec as the JSON a campaign parameter holds.
func specOf(t *testing.T, spec any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(mustJSON(t, spec)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// campaignSysctls are the network-latency example's sysctls that a real
// node's network namespace has (the rest are this machine's own).
func campaignSysctls(t *testing.T) []benchv1.Sysctl {
	t.Helper()
	example := &benchv1.TuningProfile{}
	util.LoadExample(t, "tuning/network-latency.yaml", example)
	out := inNodeNetns(example.Spec.Sysctls)
	if len(out) == 0 {
		t.Fatal("examples/tuning/network-latency.yaml has no net.* sysctl of a node's network namespace")
	}
	return out
}

// inNodeNetns are the net.* sysctls a real node's network namespace has of
// its own (the rest are this machine's, which both nodes share).
func inNodeNetns(sysctls []benchv1.Sysctl) []benchv1.Sysctl {
	var out []benchv1.Sysctl
	for _, s := range sysctls {
		if strings.HasPrefix(s.Name, "net.") && exec.Command("nsenter", "--net=/run/netns/"+nodeNetns(0), "sysctl", "-n", s.Name).Run() == nil {
			out = append(out, s)
		}
	}
	return out
}

// submitCampaign creates a Workflow of the chart's WorkflowTemplate with
// params (and spec.parallelism when above 0; edits change the rest of its
// spec); deleted when the test ends.
func submitCampaign(t testing.TB, params map[string]string, parallelism int, edits ...func(spec map[string]any)) *unstructured.Unstructured {
	t.Helper()
	wf := &unstructured.Unstructured{}
	wf.SetGroupVersionKind(workflowGVK)
	wf.SetGenerateName("real-")
	wf.SetNamespace(campaignNamespace)
	var args []map[string]any
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, map[string]any{"name": k, "value": params[k]})
	}
	spec := map[string]any{
		"workflowTemplateRef": map[string]any{"name": "benchwright-campaign"},
		"arguments":           map[string]any{"parameters": args},
	}
	if parallelism > 0 {
		spec["parallelism"] = int64(parallelism)
	}
	for _, edit := range edits {
		edit(spec)
	}
	wf.Object["spec"] = spec
	if err := k8s.Create(ctx(), wf); err != nil {
		t.Fatal(err)
	}
	name := wf.GetName()
	t.Logf("submitted Workflow %s/%s", campaignNamespace, name)
	t.Cleanup(func() {
		if t.Failed() {
			diagnoseWorkflow(t, campaignNamespace, name)
			if os.Getenv("REAL_KEEP") != "" {
				return
			}
		}
		_ = k8s.Delete(ctx(), wf)
		for _, kind := range []client.Object{&benchv1.TuningProfile{}, &benchv1.BenchmarkPool{}} {
			_ = k8s.DeleteAllOf(ctx(), kind, client.MatchingLabels{benchv1.CampaignLabel: name})
		}
	})
	return wf
}

// waitWorkflow waits for the Workflow to finish (or, after argo retry, to
// run and finish again), and returns its phase.
func waitWorkflow(t testing.TB, wf *unstructured.Unstructured, timeout time.Duration) string {
	t.Helper()
	var phase string
	failedLogs := map[string]bool{}
	began := time.Now()
	util.WaitFor(t, timeout, "Workflow "+wf.GetName()+" finished", func() (bool, string) {
		logFailedSteps(t, campaignNamespace, wf.GetName(), failedLogs)
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(wf), wf); err != nil {
			return false, err.Error()
		}
		phase, _, _ = unstructured.NestedString(wf.Object, "status", "phase")
		done := phase == "Succeeded" || phase == "Failed" || phase == "Error"
		if labels := wf.GetLabels(); done && labels["workflows.argoproj.io/completed"] != "true" {
			done = false // argo retry has not been taken up yet
		}
		return done, fmt.Sprintf("phase %q %s; %s", phase, workflowMessage(wf), runningSteps(wf))
	})
	t.Logf("Workflow %s %s after %s", wf.GetName(), phase, time.Since(began).Round(100*time.Millisecond))
	return phase
}

func workflowMessage(wf *unstructured.Unstructured) string {
	msg, _, _ := unstructured.NestedString(wf.Object, "status", "message")
	return msg
}

func workflowDuration(wf *unstructured.Unstructured) time.Duration {
	st, _, _ := unstructured.NestedString(wf.Object, "status", "startedAt")
	fin, _, _ := unstructured.NestedString(wf.Object, "status", "finishedAt")
	s, _ := time.Parse(time.RFC3339, st)
	f, _ := time.Parse(time.RFC3339, fin)
	return f.Sub(s)
}

// logCells logs every cell step's time and outcome (its output parameter:
// where the time went) and the per-cell overhead: the step's time less its
// benchmarks'.
func logCells(t testing.TB, wf *unstructured.Unstructured) {
	t.Helper()
	raw, _, _ := unstructured.NestedMap(wf.Object, "status", "nodes")
	var b strings.Builder
	fmt.Fprintf(&b, "%-34s %-9s %7s %7s %7s %7s %7s %9s\n", "cell step", "phase", "took", "pool", "tuning", "bench", "release", "overhead")
	var lines []string
	for _, v := range raw {
		n, _ := v.(map[string]any)
		if n["templateName"] != "cell" || n["type"] != "Pod" {
			continue
		}
		took, secs := stepSeconds(n), outcomeSeconds(n)
		lines = append(lines, fmt.Sprintf("%-34s %-9s %6.0fs %6.1fs %6.1fs %6.1fs %6.1fs %8.1fs", n["displayName"], n["phase"], took,
			secs["pool"], secs["tuning"], secs["benchmarks"], secs["release"], took-secs["benchmarks"]))
	}
	sort.Strings(lines)
	b.WriteString(strings.Join(lines, "\n"))
	t.Logf("cells of %s (step times from the Workflow, to the second; phases from each cell's outcome):\n%s", wf.GetName(), b.String())
	logStepTimes(t, wf)
}

// stepSeconds is a Workflow node's time, started to finished (to the second).
func stepSeconds(n map[string]any) float64 {
	started, _ := time.Parse(time.RFC3339, fmt.Sprint(n["startedAt"]))
	finished, _ := time.Parse(time.RFC3339, fmt.Sprint(n["finishedAt"]))
	return finished.Sub(started).Seconds()
}

// outcomeSeconds are a cell step's phases, from its outcome output.
func outcomeSeconds(n map[string]any) map[string]float64 {
	var outcome struct {
		Seconds map[string]float64 `json:"seconds"`
	}
	outs, _, _ := unstructured.NestedSlice(n, "outputs", "parameters")
	for _, o := range outs {
		if p, _ := o.(map[string]any); p["name"] == "outcome" {
			_ = json.Unmarshal([]byte(fmt.Sprint(p["value"])), &outcome)
		}
	}
	return outcome.Seconds
}

// failedCellMessages are the messages of the Workflow's failed cell steps.
func failedCellMessages(wf *unstructured.Unstructured) string {
	var out []string
	for _, n := range workflowNodes(wf) {
		if n.TemplateName == "cell" && n.Type == "Pod" && n.Phase == "Failed" {
			out = append(out, n.DisplayName+": "+n.Message)
		}
	}
	return strings.Join(out, "\n")
}

// checkReleased checks that no pool or tuning of the campaign is left, and
// that no node keeps a pool's label or taint.
func checkReleased(t *testing.T, campaign string) {
	t.Helper()
	util.WaitFor(t, 2*time.Minute, "the campaign's pools and tunings gone", func() (bool, string) {
		var pools benchv1.BenchmarkPoolList
		var tunings benchv1.TuningProfileList
		if err := k8s.List(ctx(), &pools, client.MatchingLabels{benchv1.CampaignLabel: campaign}); err != nil {
			return false, err.Error()
		}
		if err := k8s.List(ctx(), &tunings, client.MatchingLabels{benchv1.CampaignLabel: campaign}); err != nil {
			return false, err.Error()
		}
		return len(pools.Items)+len(tunings.Items) == 0, fmt.Sprintf("%d pools, %d tunings left", len(pools.Items), len(tunings.Items))
	})
	for _, n := range nodes() {
		var node corev1.Node
		if err := k8s.Get(ctx(), client.ObjectKey{Name: n}, &node); err != nil {
			t.Fatal(err)
		}
		if v, ok := node.Labels[benchv1.PoolLabel]; ok {
			t.Errorf("node %s still has the pool label %s=%s", n, benchv1.PoolLabel, v)
		}
		for _, taint := range node.Spec.Taints {
			if taint.Key == benchv1.PoolLabel {
				t.Errorf("node %s still has the pool taint %s=%s", n, taint.Key, taint.Value)
			}
		}
	}
}

// readPublished reads the campaign's published report from the manager's
// store (on this machine's disk).
func readPublished(t *testing.T, campaign, format string) string {
	t.Helper()
	path := filepath.Join(env["REAL_VOLUMES"], "manager-store", "artifacts", campaignNamespace, "Campaign", campaign, "report."+format)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the published report: %v", err)
	}
	return string(data)
}

// checkReportRatios checks the published report's comparisons of fio's read
// IOPS along the campaign's dimensions: pools (m2 / m1, per tuning) and
// tunings (network-latency / none, per pool). Each ratio is its cells' IOPS
// over those of the cell of the baseline, to the 3 significant digits the
// report prints.
func checkReportRatios(t *testing.T, campaign string, iops map[string]float64) {
	t.Helper()
	md := readPublished(t, campaign, "md")
	var dim string // the dimension of the table being read
	var header []string
	found := 0
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if h, ok := strings.CutPrefix(sc.Text(), "### "); ok {
			dim, _, _ = strings.Cut(h, ":")
			header = nil
			continue
		}
		if !strings.HasPrefix(sc.Text(), "|") {
			continue
		}
		cells := strings.Split(strings.Trim(sc.Text(), "| "), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == nil && slices.Contains(cells, "test") && slices.Contains(cells, "metric") {
			header = cells
			continue
		}
		col := func(name string) string {
			if i := slices.Index(header, name); i >= 0 && i < len(cells) {
				return cells[i]
			}
			return ""
		}
		if header == nil || len(cells) != len(header) || col("test") != "randread-4k" || col("metric") != "read_iops" || (dim != "pool" && dim != "tuning") {
			continue
		}
		for i, h := range header {
			value, base, ok := strings.Cut(h, " speedup vs ")
			if !ok || strings.HasSuffix(base, "(step before)") {
				continue
			}
			runCell, baseCell := value+"-"+col("tuning"), base+"-"+col("tuning")
			if dim == "tuning" {
				runCell, baseCell = col("pool")+"-"+value, col("pool")+"-"+base
			}
			want := iops[runCell] / iops[baseCell]
			got, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(cells[i])[0], "x"), 64)
			if err != nil || math.Abs(got-want)/want > 0.006 {
				t.Errorf("report: %s vs %s read IOPS ratio %q, want %.4g from the stored samples (%v)", runCell, baseCell, cells[i], want, err)
			}
			found++
		}
	}
	if found != 4 { // m2 / m1 per tuning, network-latency / none per pool
		t.Errorf("the published report compares %d pairs of cells' read IOPS along the pools and tunings, want 4:\n%s", found, head(md, 60))
	}
	t.Logf("the published report's read IOPS ratios (%d) equal the stored samples' (fio read IOPS per cell: %v)", found, iops)
}

// storedSamples are a run's samples as stored.
func storedSamples(t *testing.T, uri string) []results.Sample {
	t.Helper()
	f, err := os.Open(filepath.Join(storeDir(t, uri), "samples.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := results.ReadNDJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// medianOf is the median of a test's metric over the counted repetitions.
func medianOf(samples []results.Sample, test, metric string) float64 {
	var v []float64
	for _, s := range samples {
		if s.Test == test && s.Metric == metric && s.Labels[results.LabelWarmup] != "true" {
			v = append(v, s.Value)
		}
	}
	sort.Float64s(v)
	if len(v) == 0 {
		return math.NaN()
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func kindName(o client.Object) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", o), "*v1alpha1.")
}

func statusOf(o client.Object) *benchv1.BenchmarkStatusCommon {
	return o.(interface {
		BenchmarkStatus() *benchv1.BenchmarkStatusCommon
	}).BenchmarkStatus()
}

// placementOf is a benchmark's pool and tuning.
func placementOf(o client.Object) [2]string {
	switch b := o.(type) {
	case *benchv1.StorageBenchmark:
		return [2]string{string(b.Spec.Pool), string(b.Spec.Tuning)}
	case *benchv1.MPIBenchmark:
		return [2]string{string(b.Spec.Pool), string(b.Spec.Tuning)}
	case *benchv1.NetworkBenchmark:
		return [2]string{string(b.Spec.Pool), string(b.Spec.Tuning)}
	}
	return [2]string{}
}

func head(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = l[:lines]
	}
	return strings.Join(l, "\n")
}

// Deleting a Workflow mid-run, as a person stops a campaign: its benchmarks
// (owned by it) are deleted, and its pool and tuning are released (the cell
// releases them on SIGTERM; the manager deletes them once their Workflow is
// gone, were the cell killed outright), the nodes' sysctls read back as
// before, and no label or taint is left to block the next campaign.
func TestArgoCampaignDeletedMidRun(t *testing.T) {
	needArgo(t)
	sysctls := campaignSysctls(t)
	original := readSysctls(t, sysctls)
	spec := fioSpec()
	spec["fio"].(map[string]any)["runtime"] = "120s"
	wf := submitCampaign(t, map[string]string{
		"pools":        `[{"name": "m1"}]`,
		"poolDefaults": `{"provider": "existing", "existing": {"nodeSelector": {"benchwright.io/real-node": "true"}}}`,
		"tunings":      mustJSON(t, []map[string]any{{"name": "network-latency", "spec": map[string]any{"sysctls": sysctls}}}),
		"benchmarks":   mustJSON(t, []map[string]any{{"name": "fio", "kind": "StorageBenchmark", "spec": spec}}),
	}, 0)
	name := wf.GetName()
	key := client.ObjectKey{Namespace: campaignNamespace, Name: name + "-m1-network-latency-fio"}
	util.WaitFor(t, 5*time.Minute, key.Name+" Running", func() (bool, string) {
		var b benchv1.StorageBenchmark
		if err := k8s.Get(ctx(), key, &b); err != nil {
			return false, err.Error()
		}
		return b.Status.State == benchv1.StateRunning, string(b.Status.State)
	})
	if tuned := readSysctls(t, sysctls); fmt.Sprint(tuned) == fmt.Sprint(original) {
		t.Fatalf("the tuning is not applied while its benchmark runs: %v", tuned)
	}
	began := time.Now()
	kc.Run(t, "delete", "workflow", "-n", campaignNamespace, name, "--wait=false")
	util.WaitFor(t, 3*time.Minute, "the deleted campaign's benchmark gone", func() (bool, string) {
		err := k8s.Get(ctx(), key, &benchv1.StorageBenchmark{})
		return err != nil, fmt.Sprint(err)
	})
	checkReleased(t, name)
	t.Logf("Workflow %s deleted mid-run: its benchmark, pool and tuning gone after %s", name, time.Since(began).Round(100*time.Millisecond))
	if after := readSysctls(t, sysctls); fmt.Sprint(after) != fmt.Sprint(original) {
		t.Errorf("the nodes' sysctls after the deleted campaign %v, before %v", after, original)
	}
}
