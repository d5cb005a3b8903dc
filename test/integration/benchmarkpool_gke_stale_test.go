package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

// laggingClient is a manager's cache at its worst: the next Get of a pool
// returns the stale copy (one taken before the last reconcile's writes), and
// the next statusConflicts status writes conflict.
type laggingClient struct {
	client.Client
	stale           *benchv1.BenchmarkPool
	statusConflicts int
}

func (c *laggingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if p, ok := obj.(*benchv1.BenchmarkPool); ok && c.stale != nil {
		c.stale.DeepCopyInto(p)
		c.stale = nil
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *laggingClient) Status() client.SubResourceWriter {
	return conflictingStatus{SubResourceWriter: c.Client.Status(), c: c}
}

type conflictingStatus struct {
	client.SubResourceWriter
	c *laggingClient
}

func (s conflictingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if s.c.statusConflicts > 0 {
		s.c.statusConflicts--
		return apierrors.NewConflict(schema.GroupResource{Group: "benchwright.io", Resource: "benchmarkpools"}, obj.GetName(), nil)
	}
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

// staleReconciler drives the BenchmarkPool reconciler by hand, through a
// laggingClient, against the fake; the pool is created with its finalizer and
// returned as first stored (the stale copy a lagging cache may serve later).
func staleReconciler(t *testing.T, fake *fakegke.Server, name string) (*benchmarkpool.Reconciler, *laggingClient, *benchv1.BenchmarkPool) {
	t.Helper()
	provider, err := gke.New(context.Background(), fake.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = provider.Close() })
	p := gkePool(name, "c3-highcpu-44", 1)
	p.Spec.GKE.CompactPlacement = nil
	p.Finalizers = []string{"benchwright.io/pool-cleanup"}
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	forgetPools(t, name)
	lagging := &laggingClient{Client: k8sClient}
	r := &benchmarkpool.Reconciler{Client: lagging, APIReader: k8sClient, Scheme: scheme,
		Recorder: record.NewFakeRecorder(100), GKE: provider, GKECluster: testCluster,
		PollInterval: 50 * time.Millisecond, RetryBackoff: time.Millisecond,
	}
	return r, lagging, getPool(t, name)
}

func reconcileOnce(t *testing.T, r *benchmarkpool.Reconciler, name string) {
	t.Helper()
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// A pool failed for good (GKE's quota), then reconciled from a copy read
// before that: GKE gets no second create, and Ready keeps the quota.
func TestGKEStaleCopyCreatesNoSecondNodePool(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	fake.QueueFailures(fakegke.QuotaExceeded("C3_CPUS", 24, "us-central1"))
	r, lagging, stale := staleReconciler(t, fake, "stale-failed")
	reconcileOnce(t, r, stale.Name)
	lagging.stale = stale
	reconcileOnce(t, r, stale.Name)
	reconcileOnce(t, r, stale.Name)
	if n := len(fake.CreateRequests()); n != 1 {
		t.Errorf("GKE got %d creates, want 1", n)
	}
	p := getPool(t, stale.Name)
	ready := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
	if p.Status.State != "Failed" || ready == nil || ready.Reason != benchv1.ReasonQuotaExceeded {
		t.Errorf("state %s, Ready %v; want Failed with reason %s", p.Status.State, ready, benchv1.ReasonQuotaExceeded)
	}
}

// A create retried from a copy read before the failed attempt's writes,
// whose answer is lost: the pool says it adopts the node pool.
func TestGKEStaleCopyStillSaysItAdopts(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(1000))
	fake.QueueFailures(fakegke.Unavailable(), fakegke.InternalError().LostAnswer())
	r, lagging, stale := staleReconciler(t, fake, "stale-adopt")
	reconcileOnce(t, r, stale.Name)
	time.Sleep(10 * time.Millisecond) // past the retry backoff
	lagging.stale = stale
	reconcileOnce(t, r, stale.Name)
	wantAdopting(t, stale.Name)
	if n := len(fake.CreateRequests()); n != 2 {
		t.Errorf("GKE got %d creates, want 2", n)
	}
}

// The status write that said the pool adopts its node pool is lost to a
// conflict: the next reconcile says it again, from what the pool stored.
func TestGKEAdoptionLostToAConflictIsSaidAgain(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(1000))
	fake.QueueFailures(fakegke.InternalError().LostAnswer())
	r, lagging, stale := staleReconciler(t, fake, "conflict-adopt")
	lagging.statusConflicts = 1
	reconcileOnce(t, r, stale.Name)
	reconcileOnce(t, r, stale.Name)
	wantAdopting(t, stale.Name)
	fake.FinishOperations()
	reconcileOnce(t, r, stale.Name)
	p := getPool(t, stale.Name)
	if meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionProvisioning) || p.Annotations["benchwright.io/gke-adopted"] != "" {
		t.Errorf("node pool RUNNING, but the pool still adopts it: %v %s", p.Annotations, pretty(p.Status.Conditions))
	}
	if n := len(fake.CreateRequests()); n != 1 {
		t.Errorf("GKE got %d creates, want 1", n)
	}
}

func wantAdopting(t *testing.T, name string) {
	t.Helper()
	p := getPool(t, name)
	ready := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
	if ready == nil || ready.Reason != benchv1.ReasonProviderError || !strings.Contains(ready.Message, "adopting it") {
		t.Errorf("Ready %v, want the node pool adopted", ready)
	}
}

// The status write that said the pool failed for good is lost to a conflict:
// the next reconcile says why, from what the pool stored.
func TestGKEFailureLostToAConflictIsSaidAgain(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	fake.QueueFailures(fakegke.QuotaExceeded("C3_CPUS", 24, "us-central1"))
	r, lagging, stale := staleReconciler(t, fake, "conflict-failed")
	lagging.statusConflicts = 1
	reconcileOnce(t, r, stale.Name)
	reconcileOnce(t, r, stale.Name)
	p := getPool(t, stale.Name)
	ready := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
	if p.Status.State != "Failed" || ready == nil || ready.Reason != benchv1.ReasonQuotaExceeded || !strings.Contains(ready.Message, "Quota 'C3_CPUS' exceeded") {
		t.Errorf("state %s, Ready %v; want Failed with GKE's quota message", p.Status.State, ready)
	}
}
