//go:build real

package real

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// campaignNamespace is where the chart puts the campaign WorkflowTemplate
// and the ServiceAccount its steps run as, so where campaigns are submitted:
// argo.namespace's default, never the manager's namespace.
const campaignNamespace = "benchwright-campaigns"

var workflowGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Workflow"}

// A campaign for real: Argo's workflow-controller and argoexec image
// (make real-cluster with ARGO=1) run the chart's WorkflowTemplate for one
// cell: an existing pool over the real nodes, no tuning, one short fio
// StorageBenchmark. The Workflow Succeeds (its report too), the benchmark
// Succeeded, and the pool is gone afterwards with its taint. Logs each
// step's time from the Workflow's node statuses.
//
//	make test-real-argo     # or: REAL_ARGO=1 ARGO=1 go test -tags real -run Argo ./test/real/
func TestArgoCampaignOneCell(t *testing.T) {
	if os.Getenv("REAL_ARGO") == "" {
		t.Skip("REAL_ARGO is not set (make test-real-argo)")
	}
	if env["ARGO_ENABLED"] != "1" {
		t.Fatal("the real cluster runs without Argo: bring it up with ARGO=1 (make test-real-argo does)")
	}
	ns := campaignNamespace
	wf := &unstructured.Unstructured{}
	wf.SetGroupVersionKind(workflowGVK)
	wf.SetGenerateName("real-argo-")
	wf.SetNamespace(ns)
	benchmarks := []map[string]any{{
		"name": "fio", "kind": "StorageBenchmark", "spec": map[string]any{
			"repetitions": 1,
			"volumes":     map[string]any{"emptyDir": map[string]any{}},
			"fio": map[string]any{
				"size": "32M", "runtime": "3s",
				"jobs": []map[string]any{{"name": "randread-4k", "rw": "randread", "blockSize": "4k", "ioDepth": 8}},
			},
		},
	}}
	params := []map[string]any{
		{"name": "pools", "value": `[{"name": "real"}]`},
		{"name": "poolDefaults", "value": `{"provider": "existing", "existing": {"nodeSelector": {"benchwright.io/real-node": "true"}}}`},
		{"name": "tunings", "value": `[{"name": "none"}]`},
		{"name": "benchmarks", "value": mustJSON(t, benchmarks)},
		{"name": "title", "value": "real Argo, one cell"},
	}
	wf.Object["spec"] = map[string]any{
		"workflowTemplateRef": map[string]any{"name": "benchwright-campaign"},
		"arguments":           map[string]any{"parameters": params},
	}
	began := time.Now()
	if err := k8s.Create(ctx(), wf); err != nil {
		t.Fatal(err)
	}
	name := wf.GetName()
	pool, bench := name+"-real-none", name+"-real-none-fio"
	t.Logf("submitted Workflow %s/%s", ns, name)
	t.Cleanup(func() {
		if t.Failed() {
			diagnoseWorkflow(t, ns, name)
			if os.Getenv("REAL_KEEP") != "" {
				return
			}
		}
		// The Workflow owns its benchmarks; a pool left by a failed run is
		// the campaign's, by label, and would keep the nodes from the next.
		_ = k8s.Delete(ctx(), wf)
		_ = k8s.DeleteAllOf(ctx(), &benchv1.BenchmarkPool{}, client.MatchingLabels{"benchwright.io/campaign": name})
	})

	var phase string
	failedLogs := map[string]bool{} // a failed step's pod may be gone by the end
	util.WaitFor(t, 10*time.Minute, "Workflow "+name+" finished", func() (bool, string) {
		logFailedSteps(t, ns, name, failedLogs)
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(wf), wf); err != nil {
			return false, err.Error()
		}
		phase, _, _ = unstructured.NestedString(wf.Object, "status", "phase")
		msg, _, _ := unstructured.NestedString(wf.Object, "status", "message")
		return phase == "Succeeded" || phase == "Failed" || phase == "Error", fmt.Sprintf("phase %q %s; %s", phase, msg, runningSteps(wf))
	})
	t.Logf("Workflow %s %s %s after submission", name, phase, time.Since(began).Round(100*time.Millisecond))
	logStepTimes(t, wf)
	if phase != "Succeeded" {
		msg, _, _ := unstructured.NestedString(wf.Object, "status", "message")
		t.Fatalf("Workflow %s: %s: %s", name, phase, msg)
	}

	sb := &benchv1.StorageBenchmark{}
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: bench}, sb); err != nil {
		t.Fatalf("the cell's benchmark %s: %v", bench, err)
	}
	if sb.Status.State != benchv1.StateSucceeded {
		t.Errorf("StorageBenchmark %s is %s, want Succeeded", bench, sb.Status.State)
	}
	if string(sb.Spec.Pool) != pool {
		t.Errorf("StorageBenchmark %s ran on pool %q, want the cell's %q", bench, sb.Spec.Pool, pool)
	}
	if len(sb.Status.Results) == 0 || sb.Status.Results[0].Read == nil || sb.Status.Results[0].Read.IOPS == nil {
		t.Errorf("StorageBenchmark %s has no read IOPS in its status", bench)
	} else {
		t.Logf("%s: %s read IOPS %.0f", bench, sb.Status.Results[0].Test, sb.Status.Results[0].Read.IOPS.Median)
	}
	if err := k8s.Get(ctx(), client.ObjectKey{Name: pool}, &benchv1.BenchmarkPool{}); !apierrors.IsNotFound(err) {
		t.Errorf("BenchmarkPool %s still there after the campaign (err %v)", pool, err)
	}
	for _, n := range nodes() {
		var node corev1.Node
		if err := k8s.Get(ctx(), client.ObjectKey{Name: n}, &node); err != nil {
			t.Fatal(err)
		}
		for _, taint := range node.Spec.Taints {
			if taint.Key == benchv1.PoolLabel {
				t.Errorf("node %s still has the pool taint %s=%s", n, taint.Key, taint.Value)
			}
		}
	}
	t.Logf("argo get %s:\n%s", name, argoCLI("get", name, "-n", ns))
}

// wfNode is what the test reads of a Workflow's status.nodes entry.
type wfNode struct {
	DisplayName  string `json:"displayName"`
	Type         string `json:"type"`
	TemplateName string `json:"templateName"`
	Phase        string `json:"phase"`
	Message      string `json:"message"`
	StartedAt    string `json:"startedAt"`
	FinishedAt   string `json:"finishedAt"`
}

func workflowNodes(wf *unstructured.Unstructured) []wfNode {
	raw, _, _ := unstructured.NestedMap(wf.Object, "status", "nodes")
	data, _ := json.Marshal(raw)
	var byID map[string]wfNode
	_ = json.Unmarshal(data, &byID)
	out := make([]wfNode, 0, len(byID))
	for _, n := range byID {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].StartedAt != out[j].StartedAt {
			return out[i].StartedAt < out[j].StartedAt
		}
		return out[i].DisplayName < out[j].DisplayName
	})
	return out
}

// runningSteps names the steps (pods) not finished, with their message.
func runningSteps(wf *unstructured.Unstructured) string {
	var s []string
	for _, n := range workflowNodes(wf) {
		if n.Type == "Pod" && n.FinishedAt == "" {
			s = append(s, fmt.Sprintf("%s %s %s", n.DisplayName, n.Phase, n.Message))
		}
	}
	return "pending steps: " + strings.Join(s, "; ")
}

// logStepTimes logs each pod step's run (started to finished) and the gap
// since the step before it finished: the campaign's own overhead.
func logStepTimes(t *testing.T, wf *unstructured.Unstructured) {
	t.Helper()
	parse := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	var b strings.Builder
	var prevEnd time.Time
	start := parse(wf.GetCreationTimestamp().Format(time.RFC3339))
	fmt.Fprintf(&b, "%-28s %-16s %-10s %8s %8s %8s\n", "step", "template", "phase", "at", "took", "gap")
	for _, n := range workflowNodes(wf) {
		if n.Type != "Pod" {
			continue
		}
		s, e := parse(n.StartedAt), parse(n.FinishedAt)
		gap := "-"
		if !prevEnd.IsZero() {
			gap = s.Sub(prevEnd).String()
		}
		fmt.Fprintf(&b, "%-28s %-16s %-10s %8s %8s %8s\n", n.DisplayName, n.TemplateName, n.Phase, s.Sub(start), e.Sub(s), gap)
		if e.After(prevEnd) {
			prevEnd = e
		}
	}
	st, _, _ := unstructured.NestedString(wf.Object, "status", "startedAt")
	fin, _, _ := unstructured.NestedString(wf.Object, "status", "finishedAt")
	fmt.Fprintf(&b, "Workflow: started %s after creation, ran %s", parse(st).Sub(start), parse(fin).Sub(parse(st)))
	t.Logf("steps (pods) of %s, from its node statuses (second precision):\n%s", wf.GetName(), b.String())
}

// argoCLI runs the argo CLI that real-cluster.sh built, against the cluster.
func argoCLI(args ...string) string {
	if env["ARGO"] == "" {
		return "(no argo CLI in the env)"
	}
	out, err := exec.Command(env["ARGO"], append(args, "--kubeconfig", env["KUBECONFIG"])...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s(%v)", out, err)
	}
	return string(out)
}

// diagnoseWorkflow logs what helps with a failed campaign: argo get, the
// campaign's pods and objects, the controller's log tail.
func diagnoseWorkflow(t *testing.T, ns, name string) {
	t.Logf("argo get %s:\n%s", name, argoCLI("get", name, "-n", ns))
	t.Logf("kubectl get pods,storagebenchmarks -n %s -l workflows.argoproj.io/workflow=%s:\n%s", ns, name,
		kc.Try("get", "pods", "-n", ns, "-l", "workflows.argoproj.io/workflow="+name, "-o", "wide"))
	t.Logf("kubectl get benchmarkpools,storagebenchmarks -A:\n%s", kc.Try("get", "benchmarkpools,storagebenchmarks", "-A"))
	t.Logf("events in %s:\n%s", ns, kc.Try("get", "events", "-n", ns, "--sort-by", ".lastTimestamp"))
	if data, err := os.ReadFile(env["WORKFLOW_CONTROLLER_LOG"]); err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		t.Logf("workflow-controller log, last lines:\n%s", strings.Join(lines, "\n"))
	}
}

// logFailedSteps logs, once each, the main container's log of the
// Workflow's failed step pods while they exist (Argo deletes them at its end).
func logFailedSteps(t *testing.T, ns, name string, done map[string]bool) {
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods, client.InNamespace(ns), client.MatchingLabels{"workflows.argoproj.io/workflow": name}); err != nil {
		return
	}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodFailed || done[p.Name] {
			continue
		}
		done[p.Name] = true
		t.Logf("failed step pod %s, its log:\n%s", p.Name, kc.Try("logs", "-n", ns, p.Name, "-c", "main", "--tail", "40"))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
