package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/managercache"
	"github.com/benchwright/benchwright/test/util"
)

// storageEnv is one test's namespace, with the StorageBenchmark controller
// and a fake kubelet that runs the pods' tools for real.
type storageEnv struct {
	ns      string
	kubelet *fakeKubelet
	store   *artifacts.Store
}

// requireTool skips without the tool, except in CI where it must be there.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI installs it (.ci/run)", name)
		}
		t.Skipf("%s is not installed (apt-get install %s)", name, name)
	}
}

// newStorageEnv starts the controller in a manager of its own, scoped to a new
// namespace. hook, when not nil, decides each pod's fate.
func newStorageEnv(t *testing.T, hook func(ctx context.Context, k *fakeKubelet)) *storageEnv {
	t.Helper()
	benchwrightCLI(t) // built before any clock runs: the node-facts step runs it
	ns := testNamespace(t, "sb-")
	env := &storageEnv{ns: ns, kubelet: newFakeKubelet(t, ns)}
	if hook != nil {
		hook(context.Background(), env.kubelet)
	}
	env.store = startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		e := benchrun.NewEnv(mgr, "storagebenchmark-controller", env.kubelet, store)
		e.NodeFactsImage = managerImage
		return (&storagebenchmark.Reconciler{Env: e, Image: "registry.example/fio:test"}).SetupWithManager(mgr)
	}, env.kubelet.run)
	return env
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// testNamespace creates a namespace named after the test.
func testNamespace(tb testing.TB, prefix string) string {
	tb.Helper()
	ns := prefix + notDNS.ReplaceAllString(strings.ToLower(tb.Name()), "-")
	if len(ns) > 63 {
		ns = ns[:63]
	}
	ns = strings.TrimRight(ns, "-")
	util.EnsureNamespace(context.Background(), tb, k8sClient, ns)
	return ns
}

// startController runs a controller in a manager of its own, scoped to one
// namespace, with a file:// artifact store, and a stand-in for the cluster
// components envtest lacks; all stop when the test ends.
func startController(tb testing.TB, ns string, setup func(ctrl.Manager, *artifacts.Store) error, standIn func(context.Context)) *artifacts.Store {
	tb.Helper()
	return startControllerAs(tb, cfg, ns, setup, standIn)
}

// startControllerAs is startController with the manager's rest config.
func startControllerAs(tb testing.TB, cfg *rest.Config, ns string, setup func(ctrl.Manager, *artifacts.Store) error, standIn func(context.Context)) *artifacts.Store {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := artifacts.Open(ctx, "file://"+tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	// The real manager's cache, so that a controller reading what it strips
	// fails here; scoped to the namespace, which is the tuners' too.
	cacheOpts := managercache.Options(ns)
	cacheOpts.DefaultNamespaces = map[string]cache.Config{ns: {}}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cacheOpts,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := setup(mgr, store); err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			tb.Errorf("manager: %v", err)
		}
	}()
	go standIn(ctx)
	tb.Cleanup(func() {
		cancel()
		<-done
		_ = store.Close()
	})
	return store
}

// createNode adds a node object with a GKE machine type label.
func createNode(t *testing.T, name, machineType string) {
	t.Helper()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			benchv1.MachineTypeLabel: machineType, corev1.LabelTopologyZone: "us-central1-a",
		}},
	}
	if err := k8sClient.Create(context.Background(), n); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi")}
	n.Status.NodeInfo.KernelVersion = "6.1.0-test"
	n.Status.NodeInfo.OSImage = "Container-Optimized OS"
	if err := k8sClient.Status().Update(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}

// createBenchmark creates a StorageBenchmark from a YAML spec in the env's namespace.
func (e *storageEnv) createBenchmark(t *testing.T, name, spec string) *benchv1.StorageBenchmark {
	t.Helper()
	b := &benchv1.StorageBenchmark{}
	if err := yaml.UnmarshalStrict([]byte(spec), &b.Spec); err != nil {
		t.Fatalf("spec of %s: %v", name, err)
	}
	b.Name, b.Namespace = name, e.ns
	if err := k8sClient.Create(context.Background(), b); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	return b
}

// benchmark is a pointer to a benchmark of any kind.
type benchmark[T any] interface {
	*T
	client.Object
	BenchmarkStatus() *benchv1.BenchmarkStatusCommon
}

// waitFinished waits until the benchmark is Succeeded or Failed and returns
// it as read then.
func waitFinished[T any, B benchmark[T]](t *testing.T, b B, within time.Duration) B {
	t.Helper()
	got := B(new(T))
	util.WaitFor(t, within, b.GetName()+" finished", func() (bool, string) {
		if err := k8sClient.Get(context.Background(), clientKey(b), got); err != nil {
			t.Fatal(err)
		}
		st := got.BenchmarkStatus()
		return meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionSucceeded) ||
			meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionFailed), fmt.Sprintf("status: %+v", *st)
	})
	return got
}

// condition returns a condition of the benchmark, failing when it is missing.
func condition(t *testing.T, b *benchv1.StorageBenchmark, typ string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(b.Status.Conditions, typ)
	if c == nil {
		t.Fatalf("%s has no %s condition: %+v", b.Name, typ, b.Status.Conditions)
	}
	return *c
}

// kubectl runs the real kubectl against the test API server and returns what
// it prints.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	bin := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	kubeconfig := writeKubeconfig(t, t.TempDir())
	out, err := exec.Command(bin, append([]string{"--kubeconfig=" + kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// waitEvents waits until the Events about an object hold every wanted
// "Type/Reason": the manager's recorder writes them asynchronously, so an
// event can land just after the status that follows it.
func waitEvents(t *testing.T, ns, name string, want ...string) {
	t.Helper()
	util.WaitFor(t, 15*time.Second, fmt.Sprintf("events %v of %s", want, name), func() (bool, string) {
		evs := events(t, ns, name)
		for _, w := range want {
			if !slices.Contains(evs, w) {
				return false, fmt.Sprintf("events %v lack %s", evs, w)
			}
		}
		return true, ""
	})
}

// events lists the reasons of the Events about an object.
func events(t *testing.T, ns, name string) []string {
	t.Helper()
	var list corev1.EventList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e.Type+"/"+e.Reason)
		}
	}
	return out
}
