package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/test/fakegke"
	"github.com/benchwright/benchwright/test/util"
)

// Four pools created at once on a cluster that takes one node-pool operation
// at a time and upgrades its control plane meanwhile: GKE refuses all but
// one at a time, in its words; each pool waits ("Waiting: cluster busy") and
// retries, and all four become Ready.
func TestGKEFourPoolsOnABusyCluster(t *testing.T) {
	fake := startGKEPoolControllerOn(t, fakegke.Cluster{Parent: testCluster.Parent(), OperationLock: true}, nil)
	fake.UpgradeWindow(testCluster.Parent(), 500*time.Millisecond)
	ctx := context.Background()
	var pools []*benchv1.BenchmarkPool
	for i := range 4 {
		p := gkePool(fmt.Sprintf("busy-%d", i), "c3-highcpu-44", 2)
		createGKEPool(t, p)
		pools = append(pools, p)
		labelledNode(t, p.Name+"-node-1", map[string]string{benchv1.PoolLabel: p.Name}, true)
		labelledNode(t, p.Name+"-node-2", map[string]string{benchv1.PoolLabel: p.Name}, true)
	}
	waited := map[string]string{}
	util.WaitFor(t, 60*time.Second, "four pools Ready", func() (bool, string) {
		ready := 0
		var states []string
		for _, p := range pools {
			got := getPool(t, p.Name)
			if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.PoolConditionReady); c != nil && c.Reason == benchv1.ReasonClusterBusy {
				waited[p.Name] = c.Message
			}
			if meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.PoolConditionReady) {
				ready++
			}
			states = append(states, p.Name+": "+got.Status.State)
		}
		return ready == len(pools), strings.Join(states, ", ")
	})
	if len(waited) == 0 {
		t.Error("no pool said it waited for the busy cluster")
	}
	for name, msg := range waited {
		if !strings.HasPrefix(msg, "Waiting: cluster busy (Operation operation-") || !strings.Contains(msg, "Please wait and try again once it is done.); retrying in") {
			t.Errorf("%s: Ready said %q", name, msg)
		}
	}
	if n := len(fake.NodePools(testCluster.Parent())); n != len(pools) {
		t.Errorf("%d node pools, want %d", n, len(pools))
	}
	t.Logf("%d create requests for 4 pools; waits: %v", len(fake.CreateRequests()), waited)
	for _, p := range pools {
		if err := k8sClient.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 60*time.Second, "every node pool deleted", func() (bool, string) {
		return len(fake.NodePools(testCluster.Parent())) == 0, fmt.Sprint(len(fake.NodePools(testCluster.Parent())))
	})
}

// A partial stockout (RUNNING_WITH_ERROR) is a stockout: the pool is deleted
// and made again. A RECONCILING pool stays Ready and says so.
func TestGKEPoolStatesEndSomewhere(t *testing.T) {
	fake := startGKEPoolController(t)
	ctx := context.Background()
	fake.QueueFailures(fakegke.PartialStockout(testCluster.Project, "us-central1-a", "gke-bench-partial-1"), fakegke.Succeed)
	pool := gkePool("partial", "c3-highcpu-44", 2)
	createGKEPool(t, pool)
	labelledNode(t, "partial-node-1", map[string]string{benchv1.PoolLabel: pool.Name}, true)
	labelledNode(t, "partial-node-2", map[string]string{benchv1.PoolLabel: pool.Name}, true)
	util.WaitFor(t, 30*time.Second, "pool Ready after the partial stockout", func() (bool, string) {
		p := getPool(t, pool.Name)
		return meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionReady) && len(fake.CreateRequests()) == 2,
			fmt.Sprintf("%d creates\n%s", len(fake.CreateRequests()), pretty(p.Status))
	})
	waitEvents(t, "default", pool.Name, "Warning/"+benchv1.ReasonStockout)

	name := getPool(t, pool.Name).Status.NodePoolName
	fake.Reconcile(testCluster.Parent(), name, 2*time.Second)
	util.WaitFor(t, 20*time.Second, "Ready says GKE reconciles", func() (bool, string) {
		c := meta.FindStatusCondition(getPool(t, pool.Name).Status.Conditions, benchv1.PoolConditionReady)
		return c.Status == metav1.ConditionTrue && strings.Contains(c.Message, "Reconciling: GKE is reconciling node pool "+name), c.Message
	})
	util.WaitFor(t, 20*time.Second, "Ready without the reconciling", func() (bool, string) {
		c := meta.FindStatusCondition(getPool(t, pool.Name).Status.Conditions, benchv1.PoolConditionReady)
		return c.Status == metav1.ConditionTrue && !strings.Contains(c.Message, "Reconciling"), c.Message
	})
	if err := k8sClient.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "no node pool left", func() (bool, string) {
		return len(fake.NodePools(testCluster.Parent())) == 0, ""
	})
}

// What protects a run from upgrades: on no channel, management off; on a
// channel with a maintenance exclusion, the exclusion by name.
func TestGKEPoolUpgradeProtection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster fakegke.Cluster
		exclude time.Duration // the admin's gke.excludeUpgradesFor
		reason  string
		managed bool
	}{
		{"static", fakegke.Cluster{Parent: testCluster.Parent(), NoChannel: true}, 0, benchv1.ReasonAutoUpgradeOff, false},
		{"by-the-manager", fakegke.Cluster{Parent: testCluster.Parent()}, 720 * time.Hour, benchv1.ReasonMaintenanceExclusion, true},
		{"excluded", fakegke.Cluster{Parent: testCluster.Parent(), Channel: containerpb.ReleaseChannel_STABLE,
			Exclusions: map[string]*containerpb.TimeWindow{"campaigns": {
				StartTime: timestamppb.New(time.Now().Add(-time.Hour)), EndTime: timestamppb.New(time.Now().Add(24 * time.Hour)),
				Options: &containerpb.TimeWindow_MaintenanceExclusionOptions{MaintenanceExclusionOptions: &containerpb.MaintenanceExclusionOptions{
					Scope: containerpb.MaintenanceExclusionOptions_NO_MINOR_OR_NODE_UPGRADES}},
			}}}, 0, benchv1.ReasonMaintenanceExclusion, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := startGKEPoolControllerOn(t, tc.cluster, func(r *benchmarkpool.Reconciler) { r.GKEExcludeUpgradesFor = tc.exclude })
			ctx := context.Background()
			pool := gkePool("upgrades-"+tc.name, "c2-standard-60", 2)
			createGKEPool(t, pool)
			util.WaitFor(t, 20*time.Second, "UpgradesExcluded", func() (bool, string) {
				p := getPool(t, pool.Name)
				c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionUpgradesExcluded)
				return c != nil && c.Status == metav1.ConditionTrue && c.Reason == tc.reason && p.Status.Effective != nil, pretty(p.Status)
			})
			reqs := fake.CreateRequests()
			if m := reqs[0].GetNodePool().GetManagement(); m.GetAutoUpgrade() != tc.managed || m.GetAutoRepair() != tc.managed {
				t.Errorf("management %v, want auto-upgrade and auto-repair %v", m, tc.managed)
			}
			if e := getPool(t, pool.Name).Status.Effective; e.AutoUpgrade != tc.managed || (e.ReleaseChannel != "") != tc.managed {
				t.Errorf("effective %+v", e)
			}
			if err := k8sClient.Delete(ctx, pool); err != nil {
				t.Fatal(err)
			}
			util.WaitFor(t, 20*time.Second, "no node pool left", func() (bool, string) {
				return len(fake.NodePools(testCluster.Parent())) == 0, fmt.Sprint(fake.NodePools(testCluster.Parent()), fake.Requests())
			})
		})
	}
}

// createGKEPool creates a pool that a failed test deletes all the same: a
// BenchmarkPool left behind would get node pools from the next tests'
// controllers.
func createGKEPool(t *testing.T, p *benchv1.BenchmarkPool) {
	t.Helper()
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), p) })
}
