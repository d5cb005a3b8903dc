//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// newNamespace is a namespace of the test's own, deleted when it ends (unless
// it failed and E2E_KEEP is set, to look at).
func newNamespace(t *testing.T) string {
	t.Helper()
	name := "e2e-" + strings.ToLower(strings.TrimPrefix(t.Name(), "Test"))
	name = strings.NewReplacer("/", "-", "_", "-").Replace(name)
	if len(name) > 40 {
		name = name[:40]
	}
	name += "-" + rand.String(5)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			diagnose(t, name)
			if os.Getenv("E2E_KEEP") != "" {
				return
			}
		}
		_ = k8s.Delete(context.Background(), ns)
	})
	return name
}

// benchmark is what the storage and MPI benchmarks share here.
type benchmark interface {
	object() client.Object
	common() *benchv1.BenchmarkStatusCommon
}

type storageBench struct{ *benchv1.StorageBenchmark }

func (b storageBench) object() client.Object                  { return b.StorageBenchmark }
func (b storageBench) common() *benchv1.BenchmarkStatusCommon { return &b.Status.BenchmarkStatusCommon }

type mpiBench struct{ *benchv1.MPIBenchmark }

func (b mpiBench) object() client.Object                  { return b.MPIBenchmark }
func (b mpiBench) common() *benchv1.BenchmarkStatusCommon { return &b.Status.BenchmarkStatusCommon }

// waitSucceeded waits until b has condition Succeeded, and fails the test at
// once when it has Failed.
func waitSucceeded(t *testing.T, bench benchmark, timeout time.Duration) {
	t.Helper()
	began := time.Now()
	b := bench.object()
	util.WaitFor(t, timeout, fmt.Sprintf("%T %s Succeeded", b, b.GetName()), func() (bool, string) {
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(b), b); err != nil {
			return false, err.Error()
		}
		st := bench.common()
		if c := meta.FindStatusCondition(st.Conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
			t.Fatalf("%s failed: %s: %s", b.GetName(), c.Reason, c.Message)
		}
		if meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionSucceeded) {
			return true, ""
		}
		return false, fmt.Sprintf("state %q, progress %s, conditions %s", st.State, st.Progress, conditions(st.Conditions))
	})
	t.Logf("%s Succeeded after %s", b.GetName(), time.Since(began).Round(10*time.Millisecond))
}

func conditions(cs []metav1.Condition) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

// near tells whether got is want within a relative tolerance.
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)+1e-9
}

// diagnose logs what helps to understand a failed test: the namespace's
// events, benchmarks and pods, and the tail of the manager's log.
func diagnose(t *testing.T, ns string) {
	t.Logf("kubectl get storagebenchmarks,mpibenchmarks,jobs,mpijobs,pods,pvc -n %s -o wide:\n%s", ns,
		tryKubectl("get", "storagebenchmarks,mpibenchmarks,jobs,mpijobs,pods,pvc", "-n", ns, "-o", "wide"))
	t.Logf("events in %s:\n%s", ns, tryKubectl("get", "events", "-n", ns, "--sort-by", ".lastTimestamp"))
	if data, err := os.ReadFile(env["MANAGER_LOG"]); err == nil {
		lines := strings.Split(string(data), "\n")
		t.Logf("manager log (%s), last lines:\n%s", env["MANAGER_LOG"], strings.Join(lines[max(0, len(lines)-40):], "\n"))
	}
	for _, err := range logs.errors() {
		t.Logf("log server: %v", err)
	}
}

// kubectl runs the real kubectl against the cluster, as its admin.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	return util.Kubectl{Bin: env["KUBECTL"], Kubeconfig: env["KUBECONFIG"]}.Run(t, args...)
}

func tryKubectl(args ...string) string {
	return util.Kubectl{Bin: env["KUBECTL"], Kubeconfig: env["KUBECONFIG"]}.Try(args...)
}

// checkLogServer fails the test if serving logs went wrong.
func checkLogServer(t *testing.T) {
	t.Helper()
	for _, err := range logs.errors() {
		t.Errorf("log server: %v", err)
	}
}
