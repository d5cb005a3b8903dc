package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/test/fakegke"
	"github.com/benchwright/benchwright/test/util"
)

// createOne creates a one-node GKE pool, and watches its conditions.
func createOne(t *testing.T, name string) (*benchv1.BenchmarkPool, *conditionLog) {
	t.Helper()
	log := watchConditions(t, name)
	p := gkePool(name, "c3-highcpu-44", 1)
	p.Spec.GKE.CompactPlacement = nil
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	forgetPools(t, name)
	return p, log
}

// forgetPools deletes the pools, finalizers and all, when the test ends: a
// pool a failed test left would be reconciled by the next test's controller.
func forgetPools(t *testing.T, names ...string) {
	t.Cleanup(func() {
		ctx := context.Background()
		for _, name := range names {
			var p benchv1.BenchmarkPool
			if err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, &p); err != nil {
				continue
			}
			p.Finalizers = nil
			_ = k8sClient.Update(ctx, &p)
			_ = k8sClient.Delete(ctx, &p)
		}
	})
}

// readyCondition waits for a Ready condition of the pool with reason and a
// message containing text.
func readyCondition(t *testing.T, log *conditionLog, name, reason, text string) {
	t.Helper()
	util.WaitFor(t, 20*time.Second, fmt.Sprintf("Ready %s %q", reason, text), func() (bool, string) {
		return len(log.messages(name, benchv1.PoolConditionReady, reason, text)) > 0, log.describe(name, benchv1.PoolConditionReady)
	})
}

// The create's answer is lost though GKE created the node pool, whose
// operation is over by the time the controller looks: it is adopted by its
// UID mark, not deleted and created again.
func TestGKELostCreateAnswerAdoptsTheNodePool(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	startGKEControllerOn(t, fake, func(*benchmarkpool.Reconciler) {})
	fake.QueueFailures(fakegke.Unavailable().LostAnswer())
	p, log := createOne(t, "lost-answer")
	readyCondition(t, log, p.Name, benchv1.ReasonProviderError, "was lost (The service is currently unavailable.)")
	util.WaitFor(t, 20*time.Second, "node pool RUNNING", func() (bool, string) {
		got := getPool(t, p.Name)
		return got.Status.Effective != nil && !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.PoolConditionProvisioning), pretty(got.Status)
	})
	if n := len(fake.CreateRequests()); n != 1 {
		t.Errorf("%d creates, want 1: the lost one's node pool is adopted", n)
	}
	deleteAndCheckNothingLeft(t, fake, p)
}

// A create GKE answers only after the caller's deadline is cut at
// CallTimeout, and the node pool it made is adopted.
func TestGKEHungCreateTimesOutAndIsAdopted(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	startGKEControllerOn(t, fake, func(r *benchmarkpool.Reconciler) { r.CallTimeout = 300 * time.Millisecond })
	fake.QueueFailures(fakegke.Hang())
	start := time.Now()
	p, log := createOne(t, "hung-create")
	readyCondition(t, log, p.Name, benchv1.ReasonProviderError, "did not answer within the 300ms call timeout")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the hung create took %s to be cut", took)
	}
	if n := len(fake.CreateRequests()); n != 1 {
		t.Errorf("%d creates, want 1", n)
	}
	deleteAndCheckNothingLeft(t, fake, p)
}

// An operation past OperationTimeout shows on Ready; the pool goes on once
// it ends.
func TestGKEOverdueOperationShows(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	startGKEControllerOn(t, fake, func(r *benchmarkpool.Reconciler) { r.OperationTimeout = 200 * time.Millisecond })
	fake.QueueFailures(fakegke.SlowOperation(1500 * time.Millisecond))
	p, log := createOne(t, "slow-operation")
	readyCondition(t, log, p.Name, benchv1.ReasonProviderError, "has not finished within the 200ms timeout")
	util.WaitFor(t, 20*time.Second, "node pool RUNNING", func() (bool, string) {
		got := getPool(t, p.Name)
		return got.Status.Effective != nil && !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.PoolConditionProvisioning), pretty(got.Status)
	})
	deleteAndCheckNothingLeft(t, fake, p)
}

// A create that hangs until the call timeout holds its own pool, not the
// others: an operation of another pool that runs past OperationTimeout in
// the meantime shows on Ready before it ends.
func TestGKEOverdueOperationShowsWhileAnotherCallHangs(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	startGKEControllerOn(t, fake, func(r *benchmarkpool.Reconciler) {
		r.CallTimeout, r.OperationTimeout = 3*time.Second, 200*time.Millisecond
	})
	fake.SetInject(func(req *containerpb.CreateNodePoolRequest) error {
		if req.GetNodePool().GetName() == "hung-beside" {
			return fakegke.Hang()
		}
		return fakegke.SlowOperation(1500 * time.Millisecond)
	})
	slow, log := createOne(t, "slow-beside")
	util.WaitFor(t, 20*time.Second, "the slow create sent", func() (bool, string) {
		return len(fake.CreateRequests()) == 1, ""
	})
	hung, _ := createOne(t, "hung-beside")
	readyCondition(t, log, slow.Name, benchv1.ReasonProviderError, "has not finished within the 200ms timeout")
	if err := k8sClient.Delete(context.Background(), hung); err != nil {
		t.Fatal(err)
	}
	deleteAndCheckNothingLeft(t, fake, slow)
}

// A delete refused, then one whose operation fails: both show on Deleting
// with GKE's message, and the pool is kept until its node pool is gone.
func TestGKEFailedDeletesShowAndAreRetried(t *testing.T) {
	fake := fakegke.Start(t, fakegke.WithCluster(testCluster.Parent()), fakegke.WithRunningPolls(0))
	startGKEControllerOn(t, fake, func(*benchmarkpool.Reconciler) {})
	p, log := createOne(t, "failed-deletes")
	util.WaitFor(t, 20*time.Second, "node pool RUNNING", func() (bool, string) {
		return getPool(t, p.Name).Status.Effective != nil, ""
	})
	var mu sync.Mutex
	plan := []fakegke.Failure{
		{Code: codes.PermissionDenied, Message: "Required 'container.clusters.update' permission for 'projects/bench-project'."},
		{Code: codes.Internal, Message: "Deleting the instance group failed.", Async: true},
	}
	fake.SetDeleteInject(func(*containerpb.DeleteNodePoolRequest) error {
		mu.Lock()
		defer mu.Unlock()
		if len(plan) == 0 {
			return nil
		}
		f := plan[0]
		plan = plan[1:]
		return f
	})
	deleteAndCheckNothingLeft(t, fake, p)
	for _, text := range []string{"Required 'container.clusters.update' permission", "Deleting the instance group failed."} {
		reason := benchv1.ReasonProviderError
		if got := log.messages(p.Name, benchv1.PoolConditionDeleting, reason, text); len(got) == 0 {
			t.Errorf("no Deleting condition %s %q; seen:\n  %s", reason, text, log.describe(p.Name, benchv1.PoolConditionDeleting))
		}
	}
}

// deleteAndCheckNothingLeft deletes the pool and waits until it is gone,
// finalizer removed, with no node pool left on GKE.
func deleteAndCheckNothingLeft(t *testing.T, fake *fakegke.Server, p *benchv1.BenchmarkPool) {
	t.Helper()
	ctx := context.Background()
	if err := k8sClient.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "pool gone and no node pool left", func() (bool, string) {
		var got benchv1.BenchmarkPool
		err := k8sClient.Get(ctx, clientKey(p), &got)
		nps := fake.NodePools(testCluster.Parent())
		return apierrors.IsNotFound(err) && len(nps) == 0, fmt.Sprintf("%v; %d node pools; %s", err, len(nps), pretty(got.Status.Conditions))
	})
}
