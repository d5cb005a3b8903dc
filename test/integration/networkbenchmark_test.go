package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/test/wrappers"

	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/networkbenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// networkEnv starts the NetworkBenchmark controller with the fake kubelet,
// which runs each pod's `benchwright netbench` here: real fabtests, pinned
// with taskset, on this machine's topology.
func networkEnv(t *testing.T) (string, *artifacts.Store) {
	t.Helper()
	if runtime.NumCPU() < 2 {
		t.Skip("a pair needs 2 CPUs")
	}
	requireTool(t, "taskset")
	tools := util.BenchTools(t, "fabtests")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "benchwright"), "./cmd/benchwright")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+":"+tools+":"+os.Getenv("PATH"))
	benchwrightCLI(t) // the node-facts step's, built before any clock runs
	ns := testNamespace(t, "nb-")
	kubelet := newFakeKubelet(t, ns)
	store := startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		e := benchrun.NewEnv(mgr, "networkbenchmark-controller", kubelet, store)
		e.NodeFactsImage = managerImage
		return (&networkbenchmark.Reconciler{Env: e, Image: "registry.example/mpi:test"}).SetupWithManager(mgr)
	}, kubelet.run)
	createNode(t, "nb-node-0", "c3-standard-8")
	return ns, store
}

func createNetworkBenchmark(t *testing.T, ns, name, spec string) *benchv1.NetworkBenchmark {
	t.Helper()
	b := &benchv1.NetworkBenchmark{}
	if err := yaml.UnmarshalStrict([]byte(spec), &b.Spec); err != nil {
		t.Fatalf("spec of %s: %v", name, err)
	}
	b.Name, b.Namespace = name, ns
	if err := k8sClient.Create(context.Background(), b); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	return b
}

// TestNetworkBenchmarkPair runs a pinned pair through the controller: two
// repetitions of fi_msg_bw and fi_msg_pingpong between CPU 0 and CPU 1, the
// figures per pair in the status, the topology in the status and nodes.json.
func TestNetworkBenchmarkPair(t *testing.T) {
	ns, store := networkEnv(t)
	b := createNetworkBenchmark(t, ns, "pair", `
nodeSelector: {kubernetes.io/os: linux}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
fabtests: {tests: [fi_msg_bw, fi_msg_pingpong], provider: tcp, iterations: 100, warmupIterations: 10, messageSize: 65536}
repetitions: 2
`)
	got := waitFinished(t, b, 2*time.Minute)
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != "True" {
		t.Fatalf("not Succeeded: %+v", got.Status.Conditions)
	}
	st := got.Status
	if st.Tool != "fabtests/tcp" || st.PairCount != "1 pair on 1 node" || st.Progress != "2/2" {
		t.Errorf("display: tool %q pairs %q progress %q", st.Tool, st.PairCount, st.Progress)
	}
	if len(st.Pairs) != 2 {
		t.Fatalf("status pairs %+v, want one per test", st.Pairs)
	}
	bw, pp := st.Pairs[0], st.Pairs[1]
	if bw.Pair != "n0:c0 -> n0:c1" || bw.Test != "fi_msg_bw" || bw.PeakBandwidth == nil || bw.PeakBandwidth.Median <= 0 || bw.PeakBandwidth.N != 2 ||
		bw.PeakMessageSize == nil || *bw.PeakMessageSize != 65536 || bw.Latency != nil {
		t.Errorf("fi_msg_bw: %+v", bw)
	}
	if pp.Test != "fi_msg_pingpong" || pp.Latency == nil || pp.Latency.Median <= 0 {
		t.Errorf("fi_msg_pingpong: %+v", pp)
	}
	if st.Summary.PeakBandwidthMBps == nil || st.Summary.LatencyMicroseconds == nil || st.Summary.LowestBandwidthPair == "" {
		t.Errorf("summary %+v", st.Summary)
	}
	if len(st.Topology) != 1 || st.Topology[0].CPUs != int32(runtime.NumCPU()) || st.Topology[0].ChipletsFrom == "" || st.Topology[0].AllowedCPUs == "" {
		t.Errorf("topology %+v", st.Topology)
	}
	loc := artifacts.Location{Namespace: ns, Kind: "NetworkBenchmark", Name: b.Name, UID: string(got.UID)}
	key, _ := loc.Nodes()
	data, err := store.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []results.NodeInfo
	if err := json.Unmarshal(data, &nodes); err != nil {
		t.Fatalf("nodes.json: %v\n%s", err, data)
	}
	if len(nodes) == 0 || nodes[0].Topology == nil || len(nodes[0].Topology.CPUs) != runtime.NumCPU() {
		t.Errorf("nodes.json has no topology: %s", data)
	}
	if f := nodes[0].Facts; f == nil || f.CPUMHz <= 0 || f.Network != "pod" || f.MTU <= 0 {
		t.Errorf("nodes.json has no node facts: %s", data)
	}
	out := kubectl(t, "get", "netbench", "-n", ns)
	for _, want := range []string{"PAIRS", "PEAK(MB/S)", "SLOWEST", "1 pair on 1 node", "Succeeded"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get netbench lacks %q:\n%s", want, out)
		}
	}
}

// TestNetworkBenchmarkToolFailed: a provider this machine lacks fails the
// benchmark with fabtests' own error quoted.
func TestNetworkBenchmarkToolFailed(t *testing.T) {
	ns, _ := networkEnv(t)
	b := createNetworkBenchmark(t, ns, "verbs", `
nodeSelector: {kubernetes.io/os: linux}
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
fabtests: {tests: [fi_msg_bw], provider: verbs, messageSize: 64}
`)
	got := waitFinished(t, b, time.Minute)
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	if c == nil || c.Status != "True" || c.Reason != benchv1.ReasonToolFailed {
		t.Fatalf("conditions %+v, want Failed/ToolFailed", got.Status.Conditions)
	}
	for _, want := range []string{"repetition 1/1", "fi_msg_bw n0:c0 -> n0:c1", "fi_getinfo"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q lacks %q", c.Message, want)
		}
	}
}

// A NetworkBenchmark on a pool waits its turn behind a benchmark of another
// kind that holds the pool, and starts once that one finishes: benchmarks
// sharing nodes spoil each other's figures, whatever their kinds.
func TestNetworkBenchmarkWaitsInThePoolsQueue(t *testing.T) {
	ns, _ := networkEnv(t)
	ctx := context.Background()
	createPool(t, "nb-queue-pool", true)
	holder := wrappers.MakeStorageBenchmark("holder", ns).Pool("nb-queue-pool").EmptyDir("", "").FioPreset(benchv1.FioPresetGCEPD).Obj()
	if err := k8sClient.Create(ctx, holder); err != nil {
		t.Fatal(err)
	}
	started := metav1.Now()
	holder.Status.StartTime = &started // it runs: it holds the pool
	if err := k8sClient.Status().Update(ctx, holder); err != nil {
		t.Fatal(err)
	}
	b := createNetworkBenchmark(t, ns, "queued", `
pool: nb-queue-pool
pairs: {explicit: [{server: {cpu: 0}, client: {cpu: 1}}]}
fabtests: {tests: [fi_msg_bw], provider: tcp, iterations: 10, messageSize: 4096}
`)
	running := func() *metav1.Condition {
		var got benchv1.NetworkBenchmark
		if err := k8sClient.Get(ctx, clientKey(b), &got); err != nil {
			t.Fatal(err)
		}
		return meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionRunning)
	}
	util.WaitFor(t, 20*time.Second, "the NetworkBenchmark queued behind the StorageBenchmark", func() (bool, string) {
		c := running()
		return c != nil && c.Reason == benchv1.ReasonQueued && strings.Contains(c.Message, "StorageBenchmark/"+ns+"/holder holds it"), fmt.Sprintf("%+v", c)
	})
	meta.SetStatusCondition(&holder.Status.Conditions, metav1.Condition{Type: benchv1.ConditionSucceeded, Status: metav1.ConditionTrue, Reason: benchv1.ReasonCompleted, Message: "done"})
	if err := k8sClient.Status().Update(ctx, holder); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 20*time.Second, "the NetworkBenchmark out of the queue once the holder finished", func() (bool, string) {
		c := running()
		return c != nil && c.Reason != benchv1.ReasonQueued, fmt.Sprintf("%+v", c)
	})
}

// A NetworkBenchmark owns a NetworkPolicy, made before its first pod, that
// lets only its own pods connect to its pods (egress untouched), and its
// headless Service selects the current attempt's pods alone. envtest has no
// network plugin: this checks the API objects, not their enforcement.
func TestNetworkBenchmarkPolicyAndAttemptService(t *testing.T) {
	ns := testNamespace(t, "nb-")
	startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		e := benchrun.NewEnv(mgr, "networkbenchmark-controller", noLogs{}, store)
		return (&networkbenchmark.Reconciler{Env: e, Image: "registry.example/net:test"}).SetupWithManager(mgr)
	}, func(context.Context) {}) // no kubelet: the Jobs stay pending
	b := createNetworkBenchmark(t, ns, "policy", `
nodeSelector: {kubernetes.io/os: linux}
nodes: 2
pairs: {scopes: [interNode]}
iperf3: {seconds: 1}
`)
	ctx := context.Background()
	var np networkingv1.NetworkPolicy
	var svc corev1.Service
	var jobs batchv1.JobList
	deadline := time.Now().Add(30 * time.Second)
	for {
		errNP := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "policy-net"}, &np)
		errSvc := k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "policy-net"}, &svc)
		errJobs := k8sClient.List(ctx, &jobs, client.InNamespace(ns))
		if errNP == nil && errSvc == nil && errJobs == nil && len(jobs.Items) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no NetworkPolicy (%v), Service (%v) and two Jobs (%d, %v)", errNP, errSvc, len(jobs.Items), errJobs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := &benchv1.NetworkBenchmark{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(b), got); err != nil {
		t.Fatal(err)
	}
	if !metav1.IsControlledBy(&np, got) || !np.CreationTimestamp.Time.Before(jobs.Items[0].CreationTimestamp.Add(time.Second)) {
		t.Errorf("policy %s not controlled by the benchmark, or made after its Jobs", np.Name)
	}
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) || len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 {
		t.Fatalf("policy spec %+v: want ingress only, from one peer", np.Spec)
	}
	from, _ := metav1.LabelSelectorAsSelector(np.Spec.Ingress[0].From[0].PodSelector)
	pods, _ := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	for _, j := range jobs.Items {
		l := labels.Set(j.Spec.Template.Labels)
		if !pods.Matches(l) || !from.Matches(l) || np.Spec.Ingress[0].From[0].NamespaceSelector != nil {
			t.Errorf("policy selects %v and admits %v: not the pods of Job %s (%v), or beyond the namespace", pods, from, j.Name, l)
		}
	}
	if svc.Spec.Selector[benchv1.RepetitionLabel] != "0" || svc.Spec.Selector["benchwright.io/attempt"] != "0" {
		t.Errorf("service selector %v: want repetition 0, attempt 0", svc.Spec.Selector)
	}
}
