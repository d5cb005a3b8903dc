//go:build real

package real

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// A node lost mid-campaign: the kubelet of the cell's node stops while its
// fio runs (the containers go on, as on a node that stopped answering). The
// node controller marks the node unreachable; benchwright's pods tolerate
// that for children.NodeLostSeconds, then the taint eviction controller
// evicts them and the repetition is lost.
//   - maxRetries 1, and the node back: the repetition runs again, the cell
//     and the campaign succeed, and the benchmark says it was retried and why.
//   - maxRetries 0: the benchmark fails RetriesExhausted naming the node, the
//     cell fails with that message, the campaign ends Failed naming the cell,
//     and its pool is still released.
func TestArgoCampaignNodeLost(t *testing.T) {
	needArgo(t)
	lost := nodeWithoutManager(t)
	t.Cleanup(func() { kubeletStart(t, lost) })

	t.Run("retried", func(t *testing.T) {
		b := runNodeLostCampaign(t, lost, 1, func() {
			util.WaitFor(t, 5*time.Minute, "the lost repetition retried", func() (bool, string) {
				b := campaignFio(t)
				return b.Status.Retries > 0, fmt.Sprintf("%s retries %d: %s", b.Status.State, b.Status.Retries, runningMessage(b))
			})
			kubeletStart(t, lost)
		}, "Succeeded")
		if b.Status.State != benchv1.StateSucceeded || b.Status.Retries != 1 {
			t.Errorf("%s: %s after %d retries, want Succeeded after 1", b.Name, b.Status.State, b.Status.Retries)
		}
		events := kc.Run(t, "get", "events", "-n", campaignNamespace, "--field-selector", "involvedObject.name="+b.Name, "-o", "custom-columns=REASON:.reason,MESSAGE:.message")
		if !strings.Contains(events, "Evicted") || !strings.Contains(events, lost) || !strings.Contains(events, "DeletionByTaintManager") {
			t.Errorf("no Evicted event names the lost node %s and the eviction:\n%s", lost, events)
		}
	})
	t.Run("failed", func(t *testing.T) {
		runNodeLostCampaign(t, lost, 0, func() {}, "Failed")
	})
}

// runNodeLostCampaign runs a one-cell campaign (a pool of the node lost, one
// fio) whose node's kubelet stops once fio runs; then calls then, waits for
// the Workflow to end in phase want, and returns the benchmark as it ended.
func runNodeLostCampaign(t *testing.T, lost string, maxRetries int, then func(), want string) benchv1.StorageBenchmark {
	spec := fioSpec()
	spec["fio"].(map[string]any)["runtime"] = "20s"
	spec["maxRetries"] = maxRetries
	spec["timeouts"] = map[string]any{"start": "5m"}
	pools := []map[string]any{{"name": "lost", "spec": map[string]any{"existing": map[string]any{"nodeSelector": map[string]any{"kubernetes.io/hostname": lost}}}}}
	wf := submitCampaign(t, map[string]string{
		"pools":        mustJSON(t, pools),
		"poolDefaults": `{"provider": "existing"}`,
		"tunings":      `[{"name": "none"}]`,
		"benchmarks":   mustJSON(t, []map[string]any{{"name": "fio", "kind": "StorageBenchmark", "spec": spec}}),
		"title":        "real Argo: a node lost",
	}, 0, stepPodsOff(lost))
	name := wf.GetName()
	util.WaitFor(t, 5*time.Minute, "fio of "+name+" running on "+lost, func() (bool, string) {
		var pods corev1.PodList
		if err := k8s.List(ctx(), &pods, client.InNamespace(campaignNamespace), client.MatchingLabels{benchv1.KindLabel: "StorageBenchmark"}); err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			if strings.HasPrefix(p.Name, name+"-") && p.Spec.NodeName == lost && p.Status.Phase == corev1.PodRunning {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d benchmark pods, none of %s running on %s", len(pods.Items), name, lost)
	})
	stopped := time.Now()
	kubeletStop(t, lost)
	util.WaitFor(t, 5*time.Minute, "the lost repetition noticed", func() (bool, string) {
		b := campaignFio(t)
		return b.Status.Retries > 0 || b.Status.State == benchv1.StateFailed, fmt.Sprintf("%s: %s", b.Status.State, runningMessage(b))
	})
	t.Logf("the lost repetition was noticed %s after the kubelet stopped", time.Since(stopped).Round(time.Second))
	then()
	phase := waitWorkflow(t, wf, 10*time.Minute)
	logCells(t, wf)
	b := campaignFio(t)
	if phase != want {
		t.Fatalf("Workflow %s %s, want %s: %s", name, phase, want, workflowMessage(wf))
	}
	if want == "Failed" {
		c := failedCondition(b)
		msgs := failedCellMessages(wf)
		if b.Status.State != benchv1.StateFailed || c == nil || c.Reason != benchv1.ReasonRetriesExhausted || !strings.Contains(c.Message, lost) {
			t.Errorf("%s: %s %+v, want Failed RetriesExhausted naming %s", b.Name, b.Status.State, c, lost)
		}
		if !strings.Contains(msgs, b.Name) || !strings.Contains(msgs, lost) {
			t.Errorf("the failed cell's message does not name the benchmark and the node:\n%s", msgs)
		}
		t.Logf("the failed cell says:\n%s", msgs)
		kubeletStart(t, lost)
	}
	checkReleased(t, name)
	return b
}

// stepPodsOff keeps the Workflow's pods off the node: a step pod on a node
// whose kubelet stopped is left Terminating in phase Running (no kubelet ends
// it, and the node is not deleted as a cloud would delete a lost VM), and
// Argo waits on it.
func stepPodsOff(node string) func(map[string]any) {
	return func(spec map[string]any) {
		spec["affinity"] = map[string]any{"nodeAffinity": map[string]any{
			"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{map[string]any{
				"matchExpressions": []any{map[string]any{"key": "kubernetes.io/hostname", "operator": "NotIn", "values": []any{node}}},
			}}},
		}}
	}
}

// campaignFio is the node-lost campaign's one benchmark.
func campaignFio(t *testing.T) benchv1.StorageBenchmark {
	t.Helper()
	var list benchv1.StorageBenchmarkList
	if err := k8s.List(ctx(), &list, client.InNamespace(campaignNamespace), client.HasLabels{benchv1.CampaignLabel}); err != nil {
		t.Fatal(err)
	}
	var newest benchv1.StorageBenchmark
	for _, b := range list.Items {
		if b.CreationTimestamp.After(newest.CreationTimestamp.Time) || newest.Name == "" {
			newest = b
		}
	}
	return newest
}

func runningMessage(b benchv1.StorageBenchmark) string {
	if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionRunning); c != nil {
		return c.Reason + ": " + c.Message
	}
	return ""
}

func failedCondition(b benchv1.StorageBenchmark) *metav1.Condition {
	if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return c
	}
	return nil
}

// nodeWithoutManager is the real node the manager's pod does not run on: the
// one a test may lose.
func nodeWithoutManager(t *testing.T) string {
	t.Helper()
	on := strings.TrimSpace(kc.Run(t, "get", "pod", "-n", env["SYSTEM_NAMESPACE"], "-l", "app.kubernetes.io/component=manager",
		"-o", "jsonpath={.items[*].spec.nodeName}"))
	for _, n := range nodes() {
		if !strings.Contains(on, n) {
			return n
		}
	}
	t.Skipf("the manager's pods run on every node (%s): none can be lost", on)
	return ""
}

func kubeletStop(t *testing.T, node string) {
	t.Helper()
	if err := util.RunScript(realClusterScript(), "kubelet-stop", strings.TrimPrefix(node, "real-node-")); err != nil {
		t.Fatal(err)
	}
}

// kubeletStart starts the node's kubelet again (nothing when it runs) and
// waits for the node to be Ready.
func kubeletStart(t *testing.T, node string) {
	t.Helper()
	if err := util.RunScript(realClusterScript(), "kubelet-start", strings.TrimPrefix(node, "real-node-")); err != nil {
		t.Fatal(err)
	}
}

func realClusterScript() string { return filepath.Join(util.RepoRoot(), "hack", "real-cluster.sh") }
