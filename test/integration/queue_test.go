package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// createPool creates a BenchmarkPool of existing nodes and, when ready, gives
// it the Ready condition its controller would set.
func createPool(t *testing.T, name string, ready bool) {
	t.Helper()
	ctx := context.Background()
	p := &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkPoolSpec{Provider: benchv1.ProviderExisting,
			Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"bench": name}}},
	}
	if err := k8sClient.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), p) })
	status, reason := metav1.ConditionFalse, benchv1.ReasonNodesNotReady
	if ready {
		status, reason = metav1.ConditionTrue, benchv1.ReasonNodesReady
	}
	meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{Type: benchv1.PoolConditionReady, Status: status, Reason: reason, Message: "1 of 2 nodes Ready"})
	if err := k8sClient.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// Two benchmarks on one pool run one after the other, in creation order; the
// second shows its place in the queue while it waits.
func TestBenchmarksSharingAPoolRunOneAtATime(t *testing.T) {
	requireTool(t, "fio")
	createPool(t, "queue-pool", true)
	env := newStorageEnv(t, nil)
	spec := strings.Replace(smallFio, "nodeSelector: {kubernetes.io/os: linux}", "pool: queue-pool", 1)
	first := env.createBenchmark(t, "first", spec)
	time.Sleep(1100 * time.Millisecond) // creation times have one-second resolution
	second := env.createBenchmark(t, "second", spec)

	util.WaitFor(t, 20*time.Second, "the second benchmark waiting for the first", func() (bool, string) {
		var got benchv1.StorageBenchmark
		if err := k8sClient.Get(context.Background(), clientKey(second), &got); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRunning)
		if c == nil || c.Reason != benchv1.ReasonQueued {
			return false, fmt.Sprintf("Running condition %+v", c)
		}
		if got.Status.QueuePosition != 1 || got.Status.State != benchv1.StateWaiting || !strings.Contains(c.Message, "StorageBenchmark/"+env.ns+"/first holds it") {
			t.Errorf("queued: position %d state %s message %q", got.Status.QueuePosition, got.Status.State, c.Message)
		}
		get := kubectl(t, "get", "sbench", "-n", env.ns)
		t.Logf("kubectl get sbench while the second waits:\n%s", get)
		return true, ""
	})
	a, b := waitFinished(t, first, 90*time.Second), waitFinished(t, second, 90*time.Second)
	if !meta.IsStatusConditionTrue(a.Status.Conditions, benchv1.ConditionSucceeded) || !meta.IsStatusConditionTrue(b.Status.Conditions, benchv1.ConditionSucceeded) {
		t.Fatalf("first %+v\nsecond %+v", a.Status.Conditions, b.Status.Conditions)
	}
	if !b.Status.StartTime.After(a.Status.CompletionTime.Time) && !b.Status.StartTime.Equal(a.Status.CompletionTime) {
		t.Errorf("the second started at %v, before the first finished at %v", b.Status.StartTime, a.Status.CompletionTime)
	}
	if b.Status.QueuePosition != 0 {
		t.Errorf("queuePosition %d after running", b.Status.QueuePosition)
	}
}

// A benchmark waits for its pool to be Ready, says so, and gives up after
// timeouts.waitForNodes.
func TestBenchmarkWaitsForItsPool(t *testing.T) {
	createPool(t, "slow-pool", false)
	env := newStorageEnv(t, nil)
	spec := strings.Replace(smallFio, "nodeSelector: {kubernetes.io/os: linux}", "pool: slow-pool\ntuning: missing-profile\ntimeouts: {waitForNodes: 3s}", 1)
	b := env.createBenchmark(t, "waits", spec)
	time.Sleep(time.Second)
	var got benchv1.StorageBenchmark
	if err := k8sClient.Get(context.Background(), clientKey(b), &got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRunning); c == nil || c.Reason != benchv1.ReasonWaitingForPool ||
		c.Message != "BenchmarkPool slow-pool is not Ready: 1 of 2 nodes Ready" || got.Status.State != benchv1.StateWaiting {
		t.Errorf("while waiting: state %s, Running %+v", got.Status.State, c)
	}
	done := waitFinished(t, b, 30*time.Second)
	wantFailed(t, done, benchv1.ReasonTimeout, "waited longer than 3s (spec.timeouts.waitForNodes)", "BenchmarkPool slow-pool is not Ready")
	if done.Status.StartTime != nil {
		t.Errorf("it started: %v", done.Status.StartTime)
	}
}
