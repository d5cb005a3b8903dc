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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// campaignNamespace is where the chart puts the campaign WorkflowTemplate
// and the ServiceAccount its steps run as, so where campaigns are submitted:
// argo.namespace's default, never the manager's namespace.
const campaignNamespace = "benchwright-campaigns"

var workflowGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Workflow"}

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
func logStepTimes(t testing.TB, wf *unstructured.Unstructured) {
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
func diagnoseWorkflow(t testing.TB, ns, name string) {
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
func logFailedSteps(t testing.TB, ns, name string, done map[string]bool) {
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

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
