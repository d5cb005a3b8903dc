package integration

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
	"github.com/benchwright/benchwright/test/util"
)

var testCluster = gke.Cluster{Project: "bench-project", Location: "us-central1-a", Name: "bench"}

// startGKEPoolController runs the BenchmarkPool controller with the real GKE
// client pointed at an in-process fake ClusterManager, which has testCluster
// and the allowed clusters.
func startGKEPoolController(t *testing.T, allowed ...gke.Cluster) *fakegke.Server {
	t.Helper()
	return startGKEPoolControllerOn(t, fakegke.Cluster{Parent: testCluster.Parent()}, nil, allowed...)
}

// startGKEPoolControllerOn runs the controller, as tune changes it (if not
// nil), against a fake whose testCluster is as c describes it (a release
// channel, an operation lock...).
func startGKEPoolControllerOn(t *testing.T, c fakegke.Cluster, tune func(*benchmarkpool.Reconciler), allowed ...gke.Cluster) *fakegke.Server {
	t.Helper()
	fake := fakegke.Start(t, fakegke.WithClusterConfig(c), fakegke.WithRunningPolls(2))
	for _, c := range allowed {
		fake.AddCluster(c.Parent())
	}
	provider, err := gke.New(context.Background(), fake.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = provider.Close() })
	ns := testNamespace(t, "gke-")
	startController(t, ns, func(mgr ctrl.Manager, _ *artifacts.Store) error {
		r := &benchmarkpool.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: mgr.GetEventRecorderFor("benchmarkpool-controller"),
			GKE:      provider, GKECluster: testCluster, GKEAllowedClusters: allowed, PollInterval: 50 * time.Millisecond, RetryBackoff: 50 * time.Millisecond,
		}
		if tune != nil {
			tune(r)
		}
		return r.SetupWithManager(mgr)
	}, func(context.Context) {})
	return fake
}

func gkePool(name, machine string, nodes int32) *benchv1.BenchmarkPool {
	return &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: benchv1.BenchmarkPoolSpec{
		Provider: benchv1.ProviderGKE, GKE: &benchv1.GKEPoolSpec{
			MachineType: machine, NodeCount: nodes, CompactPlacement: &benchv1.CompactPlacement{},
			ThreadsPerCore: ptr.To[int32](1), GVNIC: ptr.To(true), NetworkTier: "TIER_1",
		}}}
}

// A GKE pool: the request GKE gets, provisioning, the effective settings read
// back, Ready once its nodes join, and the node pool deleted with the pool.
func TestGKEPoolLifecycle(t *testing.T) {
	fake := startGKEPoolController(t)
	ctx := context.Background()
	pool := gkePool("c3-compact", "c3-highcpu-44", 2)
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "node pool RUNNING, waiting for nodes", func() (bool, string) {
		p := getPool(t, pool.Name)
		return p.Status.Effective != nil && p.Status.Effective.PlacementPolicy == "COMPACT" &&
			meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady) != nil, pretty(p.Status)
	})
	reqs := fake.CreateRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d create requests: %v\n%s", len(reqs), fake.Requests(), pretty(getPool(t, pool.Name).Status))
	}
	np := reqs[0].GetNodePool()
	cfg := np.GetConfig()
	if np.GetPlacementPolicy().GetType() != containerpb.NodePool_PlacementPolicy_COMPACT ||
		cfg.GetAdvancedMachineFeatures().GetThreadsPerCore() != 1 || !cfg.GetGvnic().GetEnabled() ||
		np.GetNetworkConfig().GetNetworkPerformanceConfig().GetTotalEgressBandwidthTier() != containerpb.NodeNetworkConfig_NetworkPerformanceConfig_TIER_1 ||
		cfg.GetLabels()[benchv1.PoolLabel] != pool.Name || len(cfg.GetTaints()) != 1 ||
		cfg.GetTaints()[0].GetKey() != benchv1.PoolLabel || cfg.GetTaints()[0].GetEffect() != containerpb.NodeTaint_NO_SCHEDULE ||
		cfg.GetMachineType() != "c3-highcpu-44" || np.GetInitialNodeCount() != 2 || reqs[0].GetParent() != testCluster.Parent() ||
		!np.GetManagement().GetAutoUpgrade() || !np.GetManagement().GetAutoRepair() || // on the REGULAR channel, as GKE demands
		cfg.GetResourceLabels()[gke.OwnerLabel] != string(getPool(t, pool.Name).UID) {
		t.Errorf("create request: %v", reqs[0])
	}
	p := getPool(t, pool.Name)
	if e := p.Status.Effective; e.ThreadsPerCore != 1 || !e.GVNIC || e.NetworkTier != "TIER_1" || e.MachineType != "c3-highcpu-44" || p.Status.NodePoolName == "" ||
		!e.AutoUpgrade || !e.AutoRepair || e.ReleaseChannel != "REGULAR" || !slices.Equal(e.NodeLocations, []string{"us-central1-a"}) {
		t.Errorf("effective %+v, node pool %q", e, p.Status.NodePoolName)
	}
	// Nothing holds upgrades back on this cluster: the condition says what to do.
	if c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionUpgradesExcluded); c == nil || c.Status != metav1.ConditionFalse ||
		c.Reason != benchv1.ReasonNoMaintenanceExclusion || !strings.Contains(c.Message, "--add-maintenance-exclusion-scope no_minor_or_node_upgrades") {
		t.Errorf("UpgradesExcluded %+v", c)
	}
	// GKE's nodes join with the pool's label.
	labelledNode(t, "gke-c3-1", map[string]string{benchv1.PoolLabel: pool.Name}, true)
	labelledNode(t, "gke-c3-2", map[string]string{benchv1.PoolLabel: pool.Name}, true)
	util.WaitFor(t, 20*time.Second, "pool Ready", func() (bool, string) {
		p := getPool(t, pool.Name)
		return meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionReady) && p.Status.ReadyNodes == 2, pretty(p.Status)
	})
	t.Logf("kubectl get bpool:\n%s", kubectl(t, "get", "bpool", pool.Name))

	if err := k8sClient.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "node pool deleted, pool gone", func() (bool, string) {
		err := k8sClient.Get(ctx, clientKey(pool), &benchv1.BenchmarkPool{})
		return apierrors.IsNotFound(err) && len(fake.NodePools(testCluster.Parent())) == 0, fmt.Sprint(fake.NodePools(testCluster.Parent()))
	})
}

// A node pool of the BenchmarkPool's name that someone else made (here: the
// cluster's "default-pool") is neither adopted nor deleted: NameConflict, and
// deleting the BenchmarkPool leaves it in place.
func TestGKEPoolNameConflict(t *testing.T) {
	fake := startGKEPoolController(t)
	ctx := context.Background()
	other, err := gke.New(ctx, fake.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	foreign := &containerpb.NodePool{Name: "default-pool", InitialNodeCount: 3, Config: &containerpb.NodeConfig{MachineType: "e2-standard-4"},
		Management: &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true}}
	if _, err := other.Create(ctx, testCluster, foreign); err != nil {
		t.Fatal(err)
	}
	fake.FinishOperations()
	pool := gkePool("default-pool", "c3-highcpu-44", 2)
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "NameConflict", func() (bool, string) {
		p := getPool(t, pool.Name)
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
		return c != nil && c.Reason == benchv1.ReasonNameConflict && strings.Contains(c.Message, "neither adopts nor deletes it"), pretty(p.Status)
	})
	if err := k8sClient.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "BenchmarkPool gone", func() (bool, string) {
		err := k8sClient.Get(ctx, clientKey(pool), &benchv1.BenchmarkPool{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	left := fake.NodePools(testCluster.Parent())
	if len(left) != 1 || left[0].GetName() != "default-pool" || left[0].GetInitialNodeCount() != 3 {
		t.Errorf("the foreign node pool was touched: %v", left)
	}
	if n := len(fake.CreateRequests()); n != 1 {
		t.Errorf("%d create requests, want only the foreign one", n)
	}
}

// A manager without GKE configured keeps the finalizer of a pool whose node
// pool may exist, and says why, rather than leak the node pool.
func TestGKEPoolWithoutGKEKeepsItsFinalizer(t *testing.T) {
	startPoolController(t)
	ctx := context.Background()
	pool := gkePool("no-gke-config", "c3-highcpu-44", 2)
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 10*time.Second, "finalizer and ProviderError", func() (bool, string) {
		p := getPool(t, pool.Name)
		return len(p.Finalizers) == 1 && meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady) != nil, pretty(p.Status)
	})
	// As if a manager with GKE had created the node pool before.
	p := getPool(t, pool.Name)
	p.Status.NodePoolName = "no-gke-config"
	if err := k8sClient.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 10*time.Second, "kept, saying why", func() (bool, string) {
		p := getPool(t, pool.Name)
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionDeleting)
		return c != nil && c.Reason == benchv1.ReasonProviderError && strings.Contains(c.Message, "cannot be deleted") && len(p.Finalizers) == 1, pretty(p.Status)
	})
	// The admin deletes the node pool by hand and removes the finalizer.
	p = getPool(t, pool.Name)
	p.Finalizers = nil
	if err := k8sClient.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// A pool's spec.gke may name another cluster only if the admin allowed it:
// any other gets ClusterNotAllowed and no GKE request at all, and a node pool
// in a cluster no longer allowed keeps the pool's finalizer instead of leaking.
func TestGKEPoolOtherClusterNeedsTheAdmin(t *testing.T) {
	allowed := gke.Cluster{Project: "team-b-project", Location: "europe-west4-a", Name: "hpc"}
	fake := startGKEPoolController(t, allowed)
	other := gke.Cluster{Project: "prod-project", Location: "us-east1-b", Name: "prod"}
	fake.AddCluster(other.Parent())
	ctx := context.Background()
	inCluster := func(name string, c gke.Cluster) *benchv1.BenchmarkPool {
		p := gkePool(name, "c3-highcpu-44", 2)
		p.Spec.GKE.Project, p.Spec.GKE.Location, p.Spec.GKE.Cluster = c.Project, c.Location, c.Name
		return p
	}
	refused := inCluster("other-cluster", other)
	ok := inCluster("allowed-cluster", allowed)
	for _, p := range []*benchv1.BenchmarkPool{refused, ok} {
		if err := k8sClient.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 20*time.Second, "ClusterNotAllowed, and the allowed pool created", func() (bool, string) {
		p := getPool(t, refused.Name)
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
		return c != nil && c.Reason == benchv1.ReasonClusterNotAllowed && c.Status == metav1.ConditionFalse &&
			strings.Contains(c.Message, other.Parent()) && strings.Contains(c.Message, "gke.allowedClusters") &&
			len(fake.NodePools(allowed.Parent())) == 1, pretty(p.Status)
	})
	// Events are sent after the status write, by the recorder's own goroutine.
	util.WaitFor(t, 10*time.Second, "a ClusterNotAllowed event", func() (bool, string) {
		evs := strings.Join(events(t, "default", refused.Name), " ")
		return strings.Contains(evs, "Warning/"+benchv1.ReasonClusterNotAllowed), evs
	})
	time.Sleep(time.Second) // the refused pool's reconciles would have asked GKE by now
	for _, req := range fake.Requests() {
		if strings.Contains(fmt.Sprint(req), other.Parent()) {
			t.Errorf("GKE got a request for the cluster that is not allowed: %v", req)
		}
	}

	// As if its node pool had been created while the cluster was allowed.
	prior, err := gke.New(ctx, fake.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = prior.Close() }()
	if _, err := prior.Create(ctx, other, &containerpb.NodePool{Name: refused.Name, InitialNodeCount: 2, Config: &containerpb.NodeConfig{MachineType: "c3-highcpu-44"},
		Management: &containerpb.NodeManagement{AutoUpgrade: true, AutoRepair: true}}); err != nil {
		t.Fatal(err)
	}
	fake.FinishOperations()
	p := getPool(t, refused.Name)
	p.Status.NodePoolName = refused.Name
	if err := k8sClient.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	before := len(fake.Requests())
	for _, p := range []*benchv1.BenchmarkPool{refused, ok} {
		if err := k8sClient.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 20*time.Second, "refused pool kept, saying why; allowed one deleted", func() (bool, string) {
		p := getPool(t, refused.Name)
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionDeleting)
		err := k8sClient.Get(ctx, clientKey(ok), &benchv1.BenchmarkPool{})
		return c != nil && c.Reason == benchv1.ReasonClusterNotAllowed && strings.Contains(c.Message, "cannot be deleted") &&
			strings.Contains(c.Message, other.Parent()) && len(p.Finalizers) == 1 && apierrors.IsNotFound(err), pretty(p.Status)
	})
	for _, req := range fake.Requests()[before:] {
		if strings.Contains(fmt.Sprint(req), other.Parent()) {
			t.Errorf("GKE got a request for the cluster that is not allowed: %v", req)
		}
	}
	if n := len(fake.NodePools(other.Parent())); n != 1 {
		t.Errorf("%d node pools left in %s, want the one the admin deletes", n, other.Parent())
	}
	p = getPool(t, refused.Name) // the admin deletes the node pool by hand and removes the finalizer
	p.Finalizers = nil
	if err := k8sClient.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// A stockout is retried (the failed pool cleaned up first); an invalid
// configuration fails the pool with GKE's message and leaves nothing behind.
func TestGKEPoolFailures(t *testing.T) {
	fake := startGKEPoolController(t)
	ctx := context.Background()
	fake.QueueFailures(fakegke.StockoutDuringProvisioning(testCluster.Project, "us-central1-a", "gke-x").AsAsync(), fakegke.Succeed)
	retried := gkePool("stockout", "c3-highcpu-44", 2)
	if err := k8sClient.Create(ctx, retried); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "stockout seen, then RUNNING", func() (bool, string) {
		p := getPool(t, retried.Name)
		return p.Status.Effective != nil && len(fake.CreateRequests()) == 2,
			fmt.Sprintf("%d creates, node pools %v, annotations %v, events %v\n%s", len(fake.CreateRequests()), fake.NodePools(testCluster.Parent()), p.Annotations, events(t, "default", p.Name), pretty(p.Status))
	})
	waitEvents(t, "default", retried.Name, "Warning/"+benchv1.ReasonStockout)

	fake.QueueFailures(fakegke.CompactPlacementUnsupported("e2-standard-8"))
	bad := gkePool("bad", "n2-standard-32", 2)
	if err := k8sClient.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "pool Failed", func() (bool, string) {
		p := getPool(t, bad.Name)
		return p.Status.State == "Failed", pretty(p.Status)
	})
	c := meta.FindStatusCondition(getPool(t, bad.Name).Status.Conditions, benchv1.PoolConditionReady)
	if c.Reason != benchv1.ReasonInvalidConfig || !strings.Contains(c.Message, "e2-standard-8") {
		t.Errorf("Ready %+v", c)
	}
	if n := len(fake.NodePools(testCluster.Parent())); n != 1 {
		t.Errorf("%d node pools, want only the retried one", n)
	}
	for _, p := range []*benchv1.BenchmarkPool{retried, bad} {
		if err := k8sClient.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 20*time.Second, "no node pool left", func() (bool, string) {
		return len(fake.NodePools(testCluster.Parent())) == 0, ""
	})
}

// 50 pools created with injected failures of every kind, then deleted: not a
// single node pool is leaked.
func TestFiftyGKEPoolsLeakNothing(t *testing.T) {
	fake := startGKEPoolController(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(7))
	fake.SetInject(func(*containerpb.CreateNodePoolRequest) error {
		switch rng.Intn(6) {
		case 0:
			return fakegke.Stockout(testCluster.Project, "us-central1-a")
		case 1:
			return fakegke.StockoutDuringProvisioning(testCluster.Project, "us-central1-a", "gke-y").AsAsync()
		case 2:
			return fakegke.Unavailable()
		case 3:
			return fakegke.QuotaExceeded("C3_CPUS", 24, "us-central1")
		}
		return nil
	})
	var pools []*benchv1.BenchmarkPool
	for i := range 50 {
		p := gkePool(fmt.Sprintf("fifty-%02d", i), "c3-highcpu-44", 2)
		if err := k8sClient.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		pools = append(pools, p)
	}
	util.WaitFor(t, 60*time.Second, "every pool RUNNING or Failed", func() (bool, string) {
		settled := 0
		for _, p := range pools {
			got := getPool(t, p.Name)
			if got.Status.State == "Failed" || (got.Status.Effective != nil && !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.PoolConditionProvisioning)) {
				settled++
			}
		}
		return settled == len(pools), fmt.Sprintf("%d of %d settled", settled, len(pools))
	})
	for _, p := range pools {
		if err := k8sClient.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	util.WaitFor(t, 60*time.Second, "every pool and node pool gone", func() (bool, string) {
		var list benchv1.BenchmarkPoolList
		if err := k8sClient.List(ctx, &list); err != nil {
			return false, err.Error()
		}
		left := 0
		for _, p := range list.Items {
			if strings.HasPrefix(p.Name, "fifty-") {
				left++
			}
		}
		return left == 0 && len(fake.NodePools(testCluster.Parent())) == 0,
			fmt.Sprintf("%d pools, %d node pools", left, len(fake.NodePools(testCluster.Parent())))
	})
	t.Logf("%d create requests for 50 pools", len(fake.CreateRequests()))
}
