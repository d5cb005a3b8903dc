package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/util"
)

// The tests' API server (envtest, with benchwright's CRDs) and its admin
// client.
var (
	restConfig *rest.Config
	kube       kubernetes.Interface
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	if err := util.SetEnvtestAssets(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{util.CRDDir()}, ErrorIfCRDPathMissing: true}
	var err error
	restConfig, err = env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	if kube, err = kubernetes.NewForConfig(restConfig); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// endpoint is a realgke endpoint over TLS and the provider that talks to it.
type endpoint struct {
	prov    *Provisioner
	nodes   *fakeNodes
	gke     *gke.Provider
	cluster gke.Cluster
	info    gke.ClusterInfo
}

// serve starts an endpoint for a cluster of its own with the slots.
func serve(t *testing.T, cluster string, slotNumbers ...int) *endpoint {
	t.Helper()
	ctx := t.Context()
	c, err := gke.ParseCluster("projects/bench-proj/locations/us-central1-a/clusters/" + cluster)
	if err != nil {
		t.Fatal(err)
	}
	nodes := newFakeNodes(kube)
	prov := NewProvisioner(c, nodes, kube, slotNumbers, newTestLog(t))
	prov.maxGrace = 2 * time.Second
	cert, pool := testTLS(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := Serve(lis, prov, cert)
	t.Cleanup(srv.Stop)
	provider, err := gke.New(ctx,
		option.WithEndpoint(lis.Addr().String()),
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, ""))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = provider.Close() })
	info, err := provider.Cluster(ctx, c, true)
	if err != nil {
		t.Fatalf("reading the cluster over TLS: %v", err)
	}
	return &endpoint{prov: prov, nodes: nodes, gke: provider, cluster: c, info: info}
}

// create asks for a node pool of n c2-standard-60 nodes as the BenchmarkPool
// controller does, and returns its operation. With zones, the pool is in
// those (benchwright asks for one zone; GKE takes several).
func (e *endpoint) create(t *testing.T, pool string, n int32, zones ...string) string {
	t.Helper()
	spec := &benchv1.GKEPoolSpec{MachineType: "c2-standard-60", NodeCount: n}
	np, err := gke.NodePoolRequest(pool, "uid-"+pool, spec, gke.Target{Cluster: e.cluster, Info: e.info})
	if err != nil {
		t.Fatal(err)
	}
	if len(zones) > 0 {
		np.Locations = zones
	}
	op, err := e.gke.Create(t.Context(), e.cluster, np)
	if err != nil {
		t.Fatalf("creating node pool %s: %v", pool, err)
	}
	return op
}

func (e *endpoint) delete(t *testing.T, pool string) error {
	t.Helper()
	op, err := e.gke.Delete(t.Context(), e.cluster, pool)
	if err != nil {
		t.Fatalf("deleting node pool %s: %v", pool, err)
	}
	return e.wait(t, op)
}

// wait polls an operation until it is DONE and returns its error.
func (e *endpoint) wait(t *testing.T, op string) error {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		done, err := e.gke.Operation(t.Context(), e.cluster, op)
		if done {
			return err
		}
		if err != nil {
			t.Fatalf("reading operation %s: %v", op, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("operation %s not DONE after 20 s", op)
	return nil
}

// poolNodes are the Nodes of a node pool.
func poolNodes(t *testing.T, pool string) []corev1.Node {
	t.Helper()
	list, err := kube.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{LabelSelector: LabelNodePool + "=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func ready(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// testLog logs to the test until it has ended (a delete's work may still
// run when a test's cleanup deleted its pools).
type testLog struct {
	t    *testing.T
	mu   sync.Mutex
	done bool
}

func newTestLog(t *testing.T) *testLog {
	l := &testLog{t: t}
	t.Cleanup(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.done = true
	})
	return l
}

func (l *testLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.t.Log(strings.TrimSpace(string(b)))
	}
	return len(b), nil
}

// A 1-node pool's operation is DONE only once its Node is Ready, and the Node
// has GKE's labels, the pool's label and its taint.
func TestCreateDoneOnceTheNodeIsReady(t *testing.T) {
	e := serve(t, "ready", 3)
	release := e.nodes.hold()
	defer release()
	op := e.create(t, "bench-a", 1)
	deadline := time.Now().Add(10 * time.Second)
	for len(poolNodes(t, "bench-a")) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if len(poolNodes(t, "bench-a")) != 1 {
		t.Fatalf("no Node of pool bench-a registered")
	}
	for range 5 {
		if done, err := e.gke.Operation(t.Context(), e.cluster, op); done || err != nil {
			t.Fatalf("operation DONE (error %v) while its node is not Ready", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	release()
	if err := e.wait(t, op); err != nil {
		t.Fatalf("create: %v", err)
	}
	nodes := poolNodes(t, "bench-a")
	if len(nodes) != 1 || !ready(nodes[0]) {
		t.Fatalf("after the operation, pool bench-a has nodes %v, want one Ready node", nodes)
	}
	n := nodes[0]
	if !regexp.MustCompile(`^gke-ready-bench-a-[0-9a-f]{8}-[a-z0-9]{4}$`).MatchString(n.Name) {
		t.Errorf("node name %q is not GKE's gke-CLUSTER-POOL-HASH-SUFFIX", n.Name)
	}
	want := map[string]string{
		LabelNodePool:                  "bench-a",
		LabelMachineFamily:             "c2",
		LabelOSDistribution:            "cos",
		corev1.LabelInstanceTypeStable: "c2-standard-60",
		LabelBetaInstance:              "c2-standard-60",
		corev1.LabelTopologyZone:       "us-central1-a",
		corev1.LabelTopologyRegion:     "us-central1",
		LabelBootDisk:                  "pd-balanced",
		benchv1.PoolLabel:              "bench-a",
	}
	if _, spot := n.Labels[LabelSpot]; spot {
		t.Errorf("a node of a pool without Spot has %s", LabelSpot)
	}
	for k, v := range want {
		if n.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	taint := corev1.Taint{Key: benchv1.PoolLabel, Value: "bench-a", Effect: corev1.TaintEffectNoSchedule}
	if !hasTaint(n.Spec.Taints, taint) {
		t.Errorf("taints %v lack %s", n.Spec.Taints, taint.ToString())
	}
	np, err := e.gke.Get(t.Context(), e.cluster, "bench-a")
	if err != nil || np.GetStatus() != containerpb.NodePool_RUNNING {
		t.Errorf("node pool bench-a: %v (%v), want RUNNING", np.GetStatus(), err)
	}
}

// With every slot busy a create ends in GKE's stockout and leaves the pool in
// ERROR, which the provider deletes and retries; once a pool is deleted the
// create succeeds.
func TestStockoutUntilASlotIsFree(t *testing.T) {
	e := serve(t, "stock", 3, 4)
	for _, pool := range []string{"bench-1", "bench-2"} {
		if err := e.wait(t, e.create(t, pool, 1)); err != nil {
			t.Fatalf("creating %s: %v", pool, err)
		}
	}
	err := e.wait(t, e.create(t, "bench-3", 1))
	if gke.KindOf(err) != gke.Stockout || !gke.Retryable(err) {
		t.Fatalf("third pool: %v (kind %v), want a retryable Stockout", err, gke.KindOf(err))
	}
	stockout := regexp.MustCompile(`^Instance 'gke-stock-bench-3-[0-9a-f]{8}-[a-z0-9]{4}' creation failed: The zone 'projects/bench-proj/zones/us-central1-a' does not have enough resources available to fulfill the request\.  Try a different zone, or try again later\.$`)
	var gkeErr *gke.Error
	if !errors.As(err, &gkeErr) || !stockout.MatchString(gkeErr.Message) {
		t.Errorf("stockout %v is not GKE's", err)
	}
	np, err := e.gke.Get(t.Context(), e.cluster, "bench-3")
	if err != nil || np.GetStatus() != containerpb.NodePool_ERROR || gke.KindOf(gke.PoolError(np)) != gke.Stockout {
		t.Fatalf("node pool bench-3: %v, %v (%v), want ERROR with a stockout", np.GetStatus(), gke.PoolError(np), err)
	}
	if n := poolNodes(t, "bench-3"); len(n) != 0 || len(e.nodes.running()) != 2 {
		t.Fatalf("the stocked-out pool has nodes %v; running %v", n, e.nodes.running())
	}
	// The provider deletes the failed pool before it retries.
	if err := e.delete(t, "bench-3"); err != nil {
		t.Fatalf("deleting the ERROR pool: %v", err)
	}
	if err := e.wait(t, e.create(t, "bench-3", 1)); gke.KindOf(err) != gke.Stockout {
		t.Fatalf("retry with both slots busy: %v, want a Stockout", err)
	}
	if err := e.delete(t, "bench-3"); err != nil {
		t.Fatal(err)
	}
	if err := e.delete(t, "bench-1"); err != nil {
		t.Fatalf("deleting bench-1: %v", err)
	}
	if err := e.wait(t, e.create(t, "bench-3", 1)); err != nil {
		t.Fatalf("retry once a slot is free: %v", err)
	}
	if n := poolNodes(t, "bench-3"); len(n) != 1 || !ready(n[0]) {
		t.Fatalf("bench-3 nodes %v, want one Ready", n)
	}
}

// A pool in two zones has nodeCount nodes in each, as GKE makes them, each
// with its zone's labels; with too few slots for all of them it stocks out.
func TestNodesInEachZone(t *testing.T) {
	e := serve(t, "zones", 3, 4, 5)
	if err := e.wait(t, e.create(t, "bench-z", 1, "us-central1-b", "us-central1-c")); err != nil {
		t.Fatal(err)
	}
	var zones []string
	for _, n := range poolNodes(t, "bench-z") {
		zones = append(zones, n.Labels[corev1.LabelTopologyZone])
	}
	slices.Sort(zones)
	if !slices.Equal(zones, []string{"us-central1-b", "us-central1-c"}) {
		t.Fatalf("the nodes' zones are %v, want one node in us-central1-b and one in us-central1-c", zones)
	}
	err := e.wait(t, e.create(t, "bench-y", 1, "us-central1-a", "us-central1-b"))
	if gke.KindOf(err) != gke.Stockout || !strings.Contains(err.Error(), "zones/us-central1-b'") {
		t.Fatalf("2 nodes for 1 free slot: %v, want a stockout in us-central1-b", err)
	}
}

// A delete drains the node (cordon, then its pods within their grace period,
// bounded), stops it, deletes its Node object and frees its slot.
func TestDeleteDrainsAndRemovesTheNode(t *testing.T) {
	e := serve(t, "drain", 3)
	if err := e.wait(t, e.create(t, "bench-d", 1)); err != nil {
		t.Fatal(err)
	}
	node := poolNodes(t, "bench-d")[0].Name
	var pods []string
	for i, grace := range []int64{1, 3600} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i), Namespace: "default"},
			Spec: corev1.PodSpec{
				NodeName:                      node,
				TerminationGracePeriodSeconds: ptr.To(grace),
				Tolerations:                   []corev1.Toleration{{Key: benchv1.PoolLabel, Operator: corev1.TolerationOpExists}},
				Containers:                    []corev1.Container{{Name: "c", Image: "busybox"}},
			},
		}
		if _, err := kube.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, pod.Name)
	}
	start := time.Now()
	if err := e.delete(t, "bench-d"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("delete took %s: a pod's grace period is bounded (here to %s)", took, e.prov.maxGrace)
	}
	for _, name := range pods {
		if _, err := kube.CoreV1().Pods("default").Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("pod %s of the deleted node: %v, want it gone", name, err)
		}
	}
	if _, err := kube.CoreV1().Nodes().Get(t.Context(), node, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("node %s: %v, want it deleted", node, err)
	}
	if !slices.Contains(e.nodes.stopped, 3) || len(e.nodes.undrained) > 0 {
		t.Errorf("stopped slots %v, stopped before drained %v: want slot 3 stopped after its drain", e.nodes.stopped, e.nodes.undrained)
	}
	if n := e.prov.slots.inUse(); n != 0 {
		t.Errorf("%d slots in use after the delete, want 0", n)
	}
}

// A drain waits for the pods it deleted, which the kubelet ends, and not for
// the DaemonSet's pod that comes back on the cordoned node.
func TestDrainWaitsOnlyForThePodsItDeleted(t *testing.T) {
	e := serve(t, "daemon", 3)
	e.prov.maxGrace = 30 * time.Second
	e.nodes.finishPods = true
	if err := e.wait(t, e.create(t, "bench-t", 1)); err != nil {
		t.Fatal(err)
	}
	node := poolNodes(t, "bench-t")[0].Name
	// The DaemonSet controller: a tuner pod on the node whenever it has none.
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go func() {
		for i := 0; ctx.Err() == nil; i++ {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("tuner-%d", i), Namespace: "default"},
				Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: ptr.To[int64](30),
					Containers: []corev1.Container{{Name: "c", Image: "tuner"}}},
			}
			_, _ = kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
			for ctx.Err() == nil {
				if _, err := kube.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{}); err != nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := e.delete(t, "bench-t"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("delete took %s: the drain waited for the DaemonSet's pods that came back", took)
	}
}

// A node that never becomes Ready fails the create with its reason; it is
// stopped and its slot free again.
func TestNodeNeverReadyFailsTheCreate(t *testing.T) {
	e := serve(t, "broken", 3)
	e.prov.readyTimeout = 2 * time.Second
	const why = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
	e.nodes.failKubelet(why)
	err := e.wait(t, e.create(t, "bench-b", 1))
	if err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "node gke-broken-bench-b-") {
		t.Fatalf("create of a node that is never Ready: %v, want the node and its condition's message", err)
	}
	if !slices.Contains(e.nodes.stopped, 3) || len(poolNodes(t, "bench-b")) != 0 || e.prov.slots.inUse() != 0 {
		t.Fatalf("after the failure: stopped %v, nodes %v, %d slots in use; want slot 3 stopped, no Node, none in use",
			e.nodes.stopped, poolNodes(t, "bench-b"), e.prov.slots.inUse())
	}
	e.nodes.failKubelet("")
	if err := e.delete(t, "bench-b"); err != nil {
		t.Fatal(err)
	}
	if err := e.wait(t, e.create(t, "bench-b", 1)); err != nil {
		t.Fatalf("create once the slot is free: %v", err)
	}
}

// A node the failed create could not stop keeps its slot and stays the
// pool's: deleting the pool in ERROR, as the provider does, stops it.
func TestFailedStopIsRetriedByTheDelete(t *testing.T) {
	e := serve(t, "stuck", 3)
	e.prov.readyTimeout = time.Second
	e.nodes.failKubelet("PLEG is not healthy")
	e.nodes.stopFailures = 1
	err := e.wait(t, e.create(t, "bench-s", 1))
	if err == nil || !strings.Contains(err.Error(), "PLEG is not healthy") || !strings.Contains(err.Error(), "device or resource busy") {
		t.Fatalf("create: %v, want the node's reason and the failed stop", err)
	}
	if n := e.prov.slots.inUse(); n != 1 {
		t.Fatalf("%d slots in use after a failed stop, want 1", n)
	}
	if err := e.delete(t, "bench-s"); err != nil {
		t.Fatalf("deleting the ERROR pool: %v", err)
	}
	if n := e.prov.slots.inUse(); n != 0 || len(poolNodes(t, "bench-s")) != 0 {
		t.Fatalf("after the delete: %d slots in use, nodes %v; want none", n, poolNodes(t, "bench-s"))
	}
}

// Clean stops every slot and deletes the Nodes of this cluster's pools an
// earlier run left, and no other Node.
func TestCleanRemovesWhatAnEarlierRunLeft(t *testing.T) {
	e := serve(t, "restart", 3, 4)
	kept := []string{"real-node-1", "gke-other-old-0123abcd-wxyz", "node-2"}
	for name, labels := range map[string]map[string]string{
		"gke-restart-old-0123abcd-wxyz": {LabelNodePool: "old"},
		// The real cluster's own nodes carry a GKE pool's labels.
		kept[0]: {LabelNodePool: "real-pool"},
		// Another cluster's.
		kept[1]: {LabelNodePool: "old"},
		kept[2]: {"kubernetes.io/hostname": "node-2"},
	} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		if _, err := kube.CoreV1().Nodes().Create(t.Context(), n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, name := range kept {
			_ = kube.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{})
		}
	})
	if err := e.prov.Clean(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Nodes().Get(t.Context(), "gke-restart-old-0123abcd-wxyz", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the earlier run's GKE node: %v, want it deleted", err)
	}
	for _, name := range kept {
		if _, err := kube.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{}); err != nil {
			t.Errorf("node %s, not one of this endpoint's: %v, want it kept", name, err)
		}
	}
	if !slices.Equal(e.nodes.stopped, []int{3, 4}) {
		t.Errorf("stopped slots %v, want [3 4]", e.nodes.stopped)
	}
}
