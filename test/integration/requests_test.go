package integration

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/mpibenchmark"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/test/fixtures"
)

// requestCounter counts a client's requests to the API server by verb and
// resource ("POST jobs", "WATCH pods").
type requestCounter struct {
	mu    sync.Mutex
	count map[string]int
}

// config is cfg with every request counted.
func (c *requestCounter) config() *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			c.add(req)
			return rt.RoundTrip(req)
		})
	})
	return out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func (c *requestCounter) add(req *http.Request) {
	verb := req.Method
	if req.URL.Query().Get("watch") == "true" {
		verb = "WATCH"
	}
	// /api/v1/namespaces/NS/RES[/NAME[/SUB]], /apis/G/V/RES[/NAME[/SUB]], ...
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	at := 2
	if len(parts) > 0 && parts[0] == "apis" {
		at = 3
	}
	if len(parts) > at+1 && parts[at] == "namespaces" {
		at += 2
	}
	res := strings.Join(parts[min(at, len(parts)):], "/")
	r, name, one := strings.Cut(res, "/")
	res = r
	if _, sub, ok := strings.Cut(name, "/"); ok {
		res += "/" + sub
	}
	if verb == http.MethodGet && !one {
		verb = "LIST"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count == nil {
		c.count = map[string]int{}
	}
	c.count[verb+" "+res]++
}

// report lists the counts, and their sum without the caches' own (LIST and
// WATCH: one of each per kind and manager, not per benchmark).
func (c *requestCounter) report() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	perObject := 0
	for k, n := range c.count {
		lines = append(lines, fmt.Sprintf("%s: %d", k, n))
		if verb, _, _ := strings.Cut(k, " "); verb != "LIST" && verb != "WATCH" {
			perObject += n
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), perObject
}

// TestAPIRequestsPerBenchmark counts the manager's requests for one
// StorageBenchmark and one MPIBenchmark (two repetitions each) and checks
// that none touches a ConfigMap: their inputs ride in the pod templates.
// The logged counts are the figures of issue 19 (API requests per
// benchmark), reads of the caches' LIST and WATCH left out.
func TestAPIRequestsPerBenchmark(t *testing.T) {
	requireTool(t, "fio")
	t.Run("StorageBenchmark", func(t *testing.T) {
		createNode(t, "node-a", "n2-standard-4")
		benchwrightCLI(t)
		ns := testNamespace(t, "rq-")
		env := &storageEnv{ns: ns, kubelet: newFakeKubelet(t, ns)}
		var c requestCounter
		env.store = startControllerAs(t, c.config(), ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
			e := benchrun.NewEnv(mgr, "storagebenchmark-controller", env.kubelet, store)
			e.NodeFactsImage = managerImage
			return (&storagebenchmark.Reconciler{Env: e, Image: "registry.example/fio:test"}).SetupWithManager(mgr)
		}, env.kubelet.run)
		b := waitFinished(t, env.createBenchmark(t, "count", smallFio), 90*time.Second)
		if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
			t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
		}
		checkCounts(t, &c)
	})
	t.Run("MPIBenchmark", func(t *testing.T) {
		lat, bw := fixtures.Read(t, "osu/osu_latency_v5.8_gke_flux.txt"), fixtures.Read(t, "osu/osu_bw_v5.8_azure_aks.txt")
		createNode(t, "node-a", "c2-standard-8")
		createNode(t, "node-b", "c2-standard-8")
		createPool(t, "c2-compact", true)
		benchwrightCLI(t)
		ns := testNamespace(t, "rq-")
		var spec benchv1.MPIBenchmarkSpec
		env := &mpiEnv{ns: ns, operator: newFakeMPIOperator(t, ns, func(*mpiv2.MPIJob) mpiFate {
			return mpiFate{log: launcherLog(t, &spec, [][]byte{lat, bw}, []int{0, 0})}
		})}
		var c requestCounter
		env.store = startControllerAs(t, c.config(), ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
			e := benchrun.NewEnv(mgr, "mpibenchmark-controller", env.operator, store)
			e.NodeFactsImage = managerImage
			return (&mpibenchmark.Reconciler{Env: e, Images: map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "registry.example/mpi-openmpi:test"}}).SetupWithManager(mgr)
		}, env.operator.run)
		b := env.create(t, "count", osuOffNode)
		spec = b.Spec
		b = waitFinished(t, b, 60*time.Second)
		if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
			t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
		}
		checkCounts(t, &c)
	})
}

// checkCounts logs the counts and fails on any ConfigMap request.
func checkCounts(t *testing.T, c *requestCounter) {
	t.Helper()
	// The status writes after Succeeded are in: let the last reconcile end.
	time.Sleep(time.Second)
	lines, perObject := c.report()
	t.Logf("the manager's API requests for one benchmark: %d besides its caches' LIST and WATCH\n%s", perObject, lines)
	for _, l := range strings.Split(lines, "\n") {
		if strings.Contains(l, " configmaps") {
			t.Errorf("a ConfigMap request: %s", l)
		}
	}
}
