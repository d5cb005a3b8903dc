//go:build real

package real

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/hack/clusterkit/node"
	"github.com/benchwright/benchwright/internal/conditions"
	"github.com/benchwright/benchwright/test/util"
)

// GKE node pools are real nodes here: the manager asks the real cluster's
// GKE endpoint (hack/realgke, the fake ClusterManager over TLS) for a node
// pool, and its operation makes real kubelets join, labelled and tainted as
// GKE's nodes are; deleting the pool drains them and they leave, with
// nothing of them left on this machine. The endpoint has REAL_GKE_SLOTS
// slots: one more pool gets GKE's stockout, and the manager retries it.

// needGKE skips without the real cluster's GKE endpoint and at least n slots.
func needGKE(t *testing.T, n int) {
	t.Helper()
	if slots, _ := strconv.Atoi(env["REAL_GKE_SLOTS"]); slots < n {
		t.Skipf("needs the real cluster's GKE endpoint with %d node slots (GKE_NODES=%d), it has %q", n, n, env["REAL_GKE_SLOTS"])
	}
}

// gkePool is a BenchmarkPool of nodeCount nodes of machineType on GKE.
func gkePool(name, machineType string, nodeCount int32) *benchv1.BenchmarkPool {
	return &benchv1.BenchmarkPool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: benchv1.BenchmarkPoolSpec{
			Provider:            benchv1.ProviderGKE,
			TTLSecondsAfterIdle: ptr.To[int32](600),
			GKE:                 &benchv1.GKEPoolSpec{MachineType: machineType, NodeCount: nodeCount},
		},
	}
}

// poolNodes are the Nodes of GKE node pool name.
func poolNodes(t *testing.T, name string) []corev1.Node {
	t.Helper()
	var list corev1.NodeList
	if err := k8s.List(ctx(), &list, client.MatchingLabels{"cloud.google.com/gke-nodepool": name}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitPoolReady waits until pool is Ready and returns how long it took.
func waitPoolReady(t *testing.T, pool *benchv1.BenchmarkPool, timeout time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	util.WaitFor(t, timeout, "BenchmarkPool "+pool.Name+" Ready", func() (bool, string) {
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(pool), pool); err != nil {
			return false, err.Error()
		}
		c := conditions.Get(pool, benchv1.PoolConditionReady)
		if c == nil {
			return false, "no Ready condition"
		}
		return c.Status == metav1.ConditionTrue, c.Reason + ": " + c.Message
	})
	return time.Since(began)
}

// deletePool deletes pool and waits until it and its nodes are gone.
func deletePool(t *testing.T, pool *benchv1.BenchmarkPool, nodeNames []string) time.Duration {
	t.Helper()
	began := time.Now()
	if err := k8s.Delete(ctx(), pool); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	util.WaitFor(t, 3*time.Minute, "BenchmarkPool "+pool.Name+" and its nodes gone", func() (bool, string) {
		err := k8s.Get(ctx(), client.ObjectKeyFromObject(pool), &benchv1.BenchmarkPool{})
		if !apierrors.IsNotFound(err) {
			return false, "the pool is still there"
		}
		for _, n := range nodeNames {
			if err := k8s.Get(ctx(), client.ObjectKey{Name: n}, &corev1.Node{}); !apierrors.IsNotFound(err) {
				return false, "node " + n + " is still there"
			}
		}
		return true, ""
	})
	return time.Since(began)
}

// slotOf is the endpoint's slot of a node: its address on the bridge,
// 10.99.0.(10+slot).
func slotOf(t *testing.T, n corev1.Node) int {
	t.Helper()
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			if last, err := strconv.Atoi(a.Address[strings.LastIndexByte(a.Address, '.')+1:]); err == nil && last > 10 {
				return last - 10
			}
		}
	}
	t.Fatalf("node %s has no address of a slot: %v", n.Name, n.Status.Addresses)
	return 0
}

// leftovers is what of slot's node is still on this machine (package
// hack/clusterkit/node: processes, mounts, network namespace, cgroups).
func leftovers(slot int) string {
	host, err := node.LoadHost(filepath.Join(env["REAL_CLUSTER_DIR"], "host.json"))
	if err != nil {
		return err.Error()
	}
	return strings.Join(host.Leftovers(slot), "; ")
}

// slotMemory is the resident memory of slot's containerd, kubelet and
// kube-proxy, from their pid files.
func slotMemory(slot int) (kib int) {
	for _, name := range []string{"containerd", "kubelet", "kube-proxy"} {
		pid, err := os.ReadFile(filepath.Join(env["REAL_CLUSTER_DIR"], "run", fmt.Sprintf("%s-%d.pid", name, slot)))
		if err != nil {
			continue
		}
		status, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				kib += n
			}
		}
	}
	return kib
}

// checkGKENode checks that n joined as a node of GKE pool pool: GKE's
// labels, the pool's label and taint, Ready no later than the pool.
func checkGKENode(t *testing.T, n corev1.Node, pool *benchv1.BenchmarkPool) {
	t.Helper()
	want := map[string]string{
		"cloud.google.com/gke-nodepool":    pool.Name,
		"cloud.google.com/machine-family":  strings.Split(pool.Spec.GKE.MachineType, "-")[0],
		"node.kubernetes.io/instance-type": pool.Spec.GKE.MachineType,
		"topology.kubernetes.io/zone":      "us-central1-a",
		benchv1.PoolLabel:                  pool.Name,
	}
	for k, v := range want {
		if n.Labels[k] != v {
			t.Errorf("node %s: label %s=%q, want %q", n.Name, k, n.Labels[k], v)
		}
	}
	if !strings.HasPrefix(n.Name, "gke-real-"+pool.Name+"-") {
		t.Errorf("node %s: not named as GKE names a node of pool %s in cluster real", n.Name, pool.Name)
	}
	if !slices.ContainsFunc(n.Spec.Taints, func(tt corev1.Taint) bool {
		return tt.Key == benchv1.PoolLabel && tt.Value == pool.Name && tt.Effect == corev1.TaintEffectNoSchedule
	}) {
		t.Errorf("node %s: no taint %s=%s:NoSchedule: %v", n.Name, benchv1.PoolLabel, pool.Name, n.Spec.Taints)
	}
	var nodeReady time.Time
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			nodeReady = c.LastTransitionTime.Time
		}
	}
	poolReady := conditions.Get(pool, benchv1.PoolConditionReady)
	if nodeReady.IsZero() || poolReady == nil || poolReady.LastTransitionTime.Time.Before(nodeReady.Truncate(time.Second)) {
		t.Errorf("pool %s Ready at %v, its node %s Ready at %v: the pool is Ready only once its nodes are", pool.Name, poolReady, n.Name, nodeReady)
	}
}

// A GKE pool of one node is a real node that joins and leaves; with every
// slot in use, one more pool gets GKE's stockout, is retried and becomes
// Ready once a node is free.
func TestGKEPoolNodesJoinAndLeave(t *testing.T) {
	needGKE(t, 2)
	a, b := gkePool("real-gke-a", "c2-standard-8", 1), gkePool("real-gke-b", "n2-standard-8", 1)
	for _, p := range []*benchv1.BenchmarkPool{a, b} {
		if err := k8s.Create(ctx(), p); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx(), p) })
	}
	for _, p := range []*benchv1.BenchmarkPool{a, b} {
		took := waitPoolReady(t, p, 5*time.Minute)
		nodes := poolNodes(t, p.Name)
		if len(nodes) != 1 {
			t.Fatalf("pool %s Ready with %d nodes, want 1", p.Name, len(nodes))
		}
		checkGKENode(t, nodes[0], p)
		slot := slotOf(t, nodes[0])
		t.Logf("pool %s Ready in %s: node %s (slot %d) joined; its containerd, kubelet and kube-proxy hold %d MiB",
			p.Name, took.Round(100*time.Millisecond), nodes[0].Name, slot, slotMemory(slot)/1024)
	}
	t.Logf("kubectl get nodes -L cloud.google.com/gke-nodepool,node.kubernetes.io/instance-type:\n%s",
		kc.Try("get", "nodes", "-L", "cloud.google.com/gke-nodepool,node.kubernetes.io/instance-type"))

	// Every slot is taken (REAL_GKE_SLOTS=2): a third pool is a stockout.
	c := gkePool("real-gke-c", "c3-standard-8", 1)
	if slots, _ := strconv.Atoi(env["REAL_GKE_SLOTS"]); slots == 2 {
		if err := k8s.Create(ctx(), c); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx(), c) })
		util.WaitFor(t, 2*time.Minute, "pool "+c.Name+" refused for a stockout, and retried", func() (bool, string) {
			if err := k8s.Get(ctx(), client.ObjectKeyFromObject(c), c); err != nil {
				return false, err.Error()
			}
			r := conditions.Get(c, benchv1.PoolConditionReady)
			if r == nil {
				return false, "no Ready condition"
			}
			return r.Reason == benchv1.ReasonStockout && strings.Contains(r.Message, "retrying in"), r.Reason + ": " + r.Message
		})
		t.Logf("pool %s with both nodes in use: %s", c.Name, conditions.Get(c, benchv1.PoolConditionReady).Message)
	}

	nodeA := poolNodes(t, a.Name)[0]
	slotA := slotOf(t, nodeA)
	took := deletePool(t, a, []string{nodeA.Name})
	if left := leftovers(slotA); left != "" {
		t.Errorf("node %s left the cluster, but not this machine: %s", nodeA.Name, left)
	}
	t.Logf("pool %s deleted in %s: node %s left, nothing of slot %d on this machine", a.Name, took.Round(100*time.Millisecond), nodeA.Name, slotA)

	if c.UID != "" {
		took := waitPoolReady(t, c, 5*time.Minute)
		nodes := poolNodes(t, c.Name)
		if len(nodes) != 1 {
			t.Fatalf("pool %s Ready with %d nodes, want 1", c.Name, len(nodes))
		}
		checkGKENode(t, nodes[0], c)
		t.Logf("pool %s Ready %s after its node was freed: %s", c.Name, took.Round(100*time.Millisecond), conditions.Get(c, benchv1.PoolConditionReady).Message)
	}
	for _, p := range []*benchv1.BenchmarkPool{b, c} {
		if p.UID == "" {
			continue
		}
		n := poolNodes(t, p.Name)
		names := make([]string, 0, len(n))
		for _, x := range n {
			names = append(names, x.Name)
		}
		deletePool(t, p, names)
		for _, x := range n {
			if left := leftovers(slotOf(t, x)); left != "" {
				t.Errorf("node %s left the cluster, but not this machine: %s", x.Name, left)
			}
		}
	}
}

// tunedNodes are the nodes a campaign's TuningProfiles were Tuned on, seen
// while it ran (a cell deletes its tuning, and its pool's node, when done).
type tunedNodes struct {
	mu    sync.Mutex
	nodes map[string]string // profile -> node
}

func (tn *tunedNodes) of(profile string) string {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	return tn.nodes[profile]
}

// watchTunedNodes looks at campaign's TuningProfiles every second until the
// test ends.
func watchTunedNodes(t *testing.T, campaign string) *tunedNodes {
	tn := &tunedNodes{nodes: map[string]string{}}
	done := make(chan struct{})
	stopped := make(chan struct{})
	t.Cleanup(func() { close(done); <-stopped })
	go func() {
		defer close(stopped)
		for {
			var list benchv1.TuningProfileList
			if k8s.List(ctx(), &list, client.MatchingLabels{benchv1.CampaignLabel: campaign}) == nil {
				tn.mu.Lock()
				for _, p := range list.Items {
					if p.Status.State == benchv1.TuningTuned && len(p.Status.Nodes) > 0 {
						tn.nodes[p.Name] = p.Status.Nodes[0].Node
					}
				}
				tn.mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return tn
}

// checkGKENodesGone checks that the nodes are gone from the cluster and
// that nothing of any GKE slot's node is left on this machine.
func checkGKENodesGone(t *testing.T, nodes map[string]bool) {
	t.Helper()
	util.WaitFor(t, 2*time.Minute, "the campaign's GKE nodes gone", func() (bool, string) {
		for n := range nodes {
			if err := k8s.Get(ctx(), client.ObjectKey{Name: n}, &corev1.Node{}); !apierrors.IsNotFound(err) {
				return false, "node " + n + " is still there"
			}
		}
		return true, ""
	})
	slots, _ := strconv.Atoi(env["REAL_GKE_SLOTS"])
	for slot := 3; slot < 3+slots; slot++ {
		if left := leftovers(slot); left != "" {
			t.Errorf("GKE slot %d: %s", slot, left)
		}
	}
}

// What GKE nodes cost this machine (make bench-real-gke): one pool of as
// many nodes as the endpoint has slots, the seconds until it is Ready (the
// nodes join at once), each node's resident memory (its containerd,
// kubelet and kube-proxy), the memory the machine had less once they ran,
// and the CPU they use idle (30 s). Run with REAL_GKE_CAPACITY=1; twice, so
// that the second joins with the slots' images in place.
func TestGKENodeCapacity(t *testing.T) {
	if os.Getenv("REAL_GKE_CAPACITY") == "" {
		t.Skip("make bench-real-gke")
	}
	slots, _ := strconv.Atoi(env["REAL_GKE_SLOTS"])
	needGKE(t, 1)
	before := memAvailable(t)
	busyBefore := busyCores(t, 10*time.Second)
	pool := gkePool("real-gke-capacity", "c2-standard-8", int32(slots))
	if err := k8s.Create(ctx(), pool); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx(), pool) })
	took := waitPoolReady(t, pool, 10*time.Minute)
	nodes := poolNodes(t, pool.Name)
	var names []string
	var rss []string
	total := 0
	for _, n := range nodes {
		names = append(names, n.Name)
		kib := slotMemory(slotOf(t, n))
		total += kib
		rss = append(rss, strconv.Itoa(kib/1024))
	}
	time.Sleep(20 * time.Second) // past the kubelets' start
	busyWith := busyCores(t, 30*time.Second)
	after := memAvailable(t)
	t.Logf("%d GKE nodes Ready in %s; resident memory per node (MiB): %s (%d MiB in all); the machine's available memory %d MiB less; busy cores (of 2) idle with them %.2f, before %.2f",
		len(nodes), took.Round(100*time.Millisecond), strings.Join(rss, " "), total/1024, (before-after)/1024, busyWith, busyBefore)
	took = deletePool(t, pool, names)
	t.Logf("deleted in %s", took.Round(100*time.Millisecond))
}

// memAvailable is /proc/meminfo's MemAvailable, in KiB.
func memAvailable(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no MemAvailable in /proc/meminfo")
	return 0
}

// busyCores is how many of the two cores the machine kept busy over d (from /proc/stat).
func busyCores(t *testing.T, d time.Duration) float64 {
	t.Helper()
	read := func() (busy, all float64) {
		data, err := os.ReadFile("/proc/stat")
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(strings.SplitN(string(data), "\n", 2)[0])[1:]
		for i, f := range fields {
			v, _ := strconv.ParseFloat(f, 64)
			all += v
			if i != 3 && i != 4 { // idle, iowait
				busy += v
			}
		}
		return busy, all
	}
	b0, a0 := read()
	time.Sleep(d)
	b1, a1 := read()
	return 2 * (b1 - b0) / (a1 - a0)
}
