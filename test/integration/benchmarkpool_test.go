package integration

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/benchmarkpool"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/test/util"
)

// startPoolController runs the BenchmarkPool controller for the test.
func startPoolController(t *testing.T) {
	t.Helper()
	ns := testNamespace(t, "bp-")
	startController(t, ns, func(mgr ctrl.Manager, _ *artifacts.Store) error {
		return (&benchmarkpool.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: mgr.GetEventRecorderFor("benchmarkpool-controller")}).SetupWithManager(mgr)
	}, func(context.Context) {})
}

// labelledNode creates a node with labels, Ready or not.
func labelledNode(t *testing.T, name string, labels map[string]string, ready bool) {
	t.Helper()
	ctx := context.Background()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := k8sClient.Create(ctx, n); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), n) })
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if err := k8sClient.Status().Update(ctx, n); err != nil {
		t.Fatal(err)
	}
}

func getPool(t *testing.T, name string) *benchv1.BenchmarkPool {
	t.Helper()
	var p benchv1.BenchmarkPool
	if err := k8sClient.Get(context.Background(), clientKey(&benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: name}}), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func getNode(t *testing.T, name string) *corev1.Node {
	t.Helper()
	var n corev1.Node
	if err := k8sClient.Get(context.Background(), clientKey(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

// An existing pool labels and taints the nodes it selects, is Ready when they
// are, leaves another pool's node alone, and gives everything back when
// deleted.
func TestExistingPoolLabelsTaintsAndReleases(t *testing.T) {
	startPoolController(t)
	in := benchv1.BenchmarkNodeLabel
	labelledNode(t, "ex-1", map[string]string{"rack": "r7", in: "true"}, true)
	labelledNode(t, "ex-2", map[string]string{"rack": "r7", in: "true"}, false)
	labelledNode(t, "ex-3", map[string]string{"rack": "r7", in: "true", benchv1.PoolLabel: "someone-else"}, true)
	labelledNode(t, "ex-4", map[string]string{"rack": "r8", in: "true"}, true)
	// Selected, but not for benchmarks: no opt-in, or the control plane.
	labelledNode(t, "ex-5", map[string]string{"rack": "r7"}, true)
	labelledNode(t, "ex-6", map[string]string{"rack": "r7", in: "true", "node-role.kubernetes.io/control-plane": ""}, true)
	ctx := context.Background()
	pool := &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: "r7"}, Spec: benchv1.BenchmarkPoolSpec{
		Provider: benchv1.ProviderExisting, Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"rack": "r7"}}}}
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 10*time.Second, "nodes claimed, not Ready", func() (bool, string) {
		p := getPool(t, "r7")
		c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
		return c != nil && c.Reason == benchv1.ReasonNodesNotReady && slices.Equal(p.Status.Nodes, []string{"ex-1", "ex-2"}) && p.Status.ReadyNodes == 1,
			pretty(p.Status)
	})
	p := getPool(t, "r7")
	c := meta.FindStatusCondition(p.Status.Conditions, benchv1.PoolConditionReady)
	if !strings.Contains(c.Message, "1 of 2 nodes Ready") || !strings.Contains(c.Message, "node ex-3 belongs to BenchmarkPool someone-else") || p.Status.State != "NotReady" ||
		!strings.Contains(c.Message, "node ex-5 lacks the admin's opt-in label benchwright.io/benchmark-node=true") || !strings.Contains(c.Message, "node ex-6 is a control-plane node") {
		t.Errorf("Ready condition %+v, state %s", c, p.Status.State)
	}
	for _, name := range []string{"ex-5", "ex-6"} {
		if n := getNode(t, name); n.Labels[benchv1.PoolLabel] != "" || hasPoolTaint(n) {
			t.Errorf("node %s was claimed: %v %v", name, n.Labels, n.Spec.Taints)
		}
	}
	for _, name := range []string{"ex-1", "ex-2"} {
		n := getNode(t, name)
		if n.Labels[benchv1.PoolLabel] != "r7" || !slices.ContainsFunc(n.Spec.Taints, func(tt corev1.Taint) bool {
			return tt.Key == benchv1.PoolLabel && tt.Value == "r7" && tt.Effect == corev1.TaintEffectNoSchedule
		}) {
			t.Errorf("node %s: labels %v taints %v", name, n.Labels, n.Spec.Taints)
		}
	}
	if n := getNode(t, "ex-4"); n.Labels[benchv1.PoolLabel] != "" || hasPoolTaint(n) {
		t.Errorf("unselected node touched: %v %v", n.Labels, n.Spec.Taints)
	}

	// The second node becomes Ready: the pool is Ready.
	n := getNode(t, "ex-2")
	n.Status.Conditions[0].Status = corev1.ConditionTrue
	if err := k8sClient.Status().Update(ctx, n); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 10*time.Second, "pool Ready", func() (bool, string) {
		p := getPool(t, "r7")
		return meta.IsStatusConditionTrue(p.Status.Conditions, benchv1.PoolConditionReady) && p.Status.State == "Ready", pretty(p.Status)
	})
	t.Logf("kubectl get bpool:\n%s", kubectl(t, "get", "bpool", "r7"))

	// Deleted: label and taint gone from its nodes, the pool gone.
	if err := k8sClient.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 10*time.Second, "pool gone", func() (bool, string) {
		err := k8sClient.Get(ctx, clientKey(pool), &benchv1.BenchmarkPool{})
		return apierrors.IsNotFound(err), ""
	})
	for _, name := range []string{"ex-1", "ex-2"} {
		if n := getNode(t, name); n.Labels[benchv1.PoolLabel] != "" || hasPoolTaint(n) {
			t.Errorf("node %s kept %v %v", name, n.Labels, n.Spec.Taints)
		}
	}
	if n := getNode(t, "ex-3"); n.Labels[benchv1.PoolLabel] != "someone-else" {
		t.Errorf("another pool's node changed: %v", n.Labels)
	}
}

// A pool no benchmark used for ttlSecondsAfterIdle deletes itself.
func TestIdlePoolExpires(t *testing.T) {
	startPoolController(t)
	labelledNode(t, "ttl-1", map[string]string{"rack": "ttl", benchv1.BenchmarkNodeLabel: "true"}, true)
	ctx := context.Background()
	pool := &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: "ttl"}, Spec: benchv1.BenchmarkPoolSpec{
		Provider: benchv1.ProviderExisting, TTLSecondsAfterIdle: ptr.To[int32](2),
		Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"rack": "ttl"}, Taint: ptr.To(false)}}}
	if err := k8sClient.Create(ctx, pool); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 15*time.Second, "idle pool deleted", func() (bool, string) {
		err := k8sClient.Get(ctx, clientKey(pool), &benchv1.BenchmarkPool{})
		return apierrors.IsNotFound(err), ""
	})
	if n := getNode(t, "ttl-1"); n.Labels[benchv1.PoolLabel] != "" {
		t.Errorf("node kept the label: %v", n.Labels)
	}
}

// A pool is idle only once Ready and while nothing holds it (issue 44): a
// pool whose node another pool holds, as a campaign cell's second pool on a
// node, waits past its TTL; once Ready, a campaign cell's hold keeps it; let
// go, it expires.
func TestPoolIdleOnlyWhenReadyAndUnheld(t *testing.T) {
	startPoolController(t)
	labelledNode(t, "idle-1", map[string]string{"rack": "idle", benchv1.BenchmarkNodeLabel: "true"}, true)
	ctx := context.Background()
	existing := func(name string, ttl *int32) *benchv1.BenchmarkPool {
		return &benchv1.BenchmarkPool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: benchv1.BenchmarkPoolSpec{
			Provider: benchv1.ProviderExisting, TTLSecondsAfterIdle: ttl,
			Existing: &benchv1.ExistingPoolSpec{NodeSelector: map[string]string{"rack": "idle"}, Taint: ptr.To(false)}}}
	}
	first := existing("idle-first", nil)
	if err := k8sClient.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 10*time.Second, "first pool Ready", func() (bool, string) {
		p := getPool(t, first.Name)
		return p.Status.State == "Ready", pretty(p.Status)
	})
	waiting := existing("idle-waiting", ptr.To[int32](2))
	if err := k8sClient.Create(ctx, waiting); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), waiting) })
	// Three TTLs on, the pool that never was Ready is still there.
	time.Sleep(6 * time.Second)
	if p := getPool(t, waiting.Name); p.Status.State != "NotReady" || p.Status.LastUsedTime != nil {
		t.Fatalf("pool waiting for its node: state %s, lastUsedTime %v; want NotReady, none", p.Status.State, p.Status.LastUsedTime)
	}

	// A cell holds it before its node is freed: Ready, held, not expired.
	p := getPool(t, waiting.Name)
	p.Annotations = map[string]string{benchv1.CampaignCellAnnotation: "rmem"}
	if err := k8sClient.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 15*time.Second, "waiting pool Ready", func() (bool, string) {
		p := getPool(t, waiting.Name)
		return p.Status.State == "Ready", pretty(p.Status)
	})
	time.Sleep(5 * time.Second)
	p = getPool(t, waiting.Name)
	if p.Status.State != "Ready" {
		t.Fatalf("held pool: state %s", p.Status.State)
	}

	// Let go: it expires after its TTL.
	delete(p.Annotations, benchv1.CampaignCellAnnotation)
	if err := k8sClient.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 15*time.Second, "idle pool deleted", func() (bool, string) {
		err := k8sClient.Get(ctx, clientKey(waiting), &benchv1.BenchmarkPool{})
		return apierrors.IsNotFound(err), ""
	})
}

// hasPoolTaint tells whether a node has any benchwright.io/pool taint (the
// API server adds node.kubernetes.io/not-ready on its own).
func hasPoolTaint(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == benchv1.PoolLabel })
}

// pretty prints a status for a failure message.
func pretty(v any) string {
	out, err := yaml.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(out)
}
