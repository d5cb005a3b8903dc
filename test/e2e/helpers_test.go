//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

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

// loadExample reads a YAML file of examples/ into obj, strictly: a field the
// API does not have fails the test.
func loadExample(t *testing.T, name string, obj client.Object) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(util.RepoRoot(), "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("examples/%s: %v", name, err)
	}
}

// waitFor polls check every 200 ms until it returns true, or fails the test
// after timeout with check's last message and the manager's log tail.
func waitFor(t *testing.T, timeout time.Duration, what string, check func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, msg := check()
		if ok {
			return
		}
		last = msg
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, timeout, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
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
	waitFor(t, timeout, fmt.Sprintf("%T %s Succeeded", b, b.GetName()), func() (bool, string) {
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

// children counts what a benchmark's deletion must take away in ns: every
// pod, Job, MPIJob, PVC, ConfigMap, Secret and Service but the namespace's
// own (kube-root-ca.crt). Each test has a namespace to itself, so this holds
// grandchildren too (the MPI Operator's hostfile, keys and Service).
func children(ctx context.Context, ns string) (map[string][]string, error) {
	lists := map[string]client.ObjectList{
		"pods": &corev1.PodList{}, "jobs": &batchv1.JobList{}, "mpijobs": &mpiv2.MPIJobList{},
		"pvcs": &corev1.PersistentVolumeClaimList{}, "configmaps": &corev1.ConfigMapList{},
		"secrets": &corev1.SecretList{}, "services": &corev1.ServiceList{},
	}
	out := map[string][]string{}
	for kind, list := range lists {
		if err := k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			o := it.(client.Object)
			if kind == "configmaps" && o.GetName() == "kube-root-ca.crt" {
				continue
			}
			out[kind] = append(out[kind], o.GetName())
		}
	}
	return out, nil
}

// deleteAndWaitGone deletes b and waits until neither it nor anything of its
// namespace (children) is left.
func deleteAndWaitGone(t *testing.T, b client.Object) {
	t.Helper()
	ctx := context.Background()
	before, err := children(ctx, b.GetNamespace())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("children of %s before deletion: %v", b.GetName(), before)
	if err := k8s.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	waitFor(t, 60*time.Second, "deletion of "+b.GetName()+" and every child", func() (bool, string) {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(b), b); err == nil {
			return false, "the benchmark is still there (finalizers " + strings.Join(b.GetFinalizers(), ",") + ")"
		}
		left, err := children(ctx, b.GetNamespace())
		if err != nil {
			return false, err.Error()
		}
		return len(left) == 0, fmt.Sprintf("left: %v", left)
	})
	t.Logf("%s and its children gone %s after deletion", b.GetName(), time.Since(began).Round(10*time.Millisecond))
}

// kubectl runs the real kubectl against the cluster, as its admin.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(env["KUBECTL"], append([]string{"--kubeconfig", env["KUBECONFIG"]}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// table parses kubectl get's output into rows of column -> value.
func table(t *testing.T, out string) []map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("kubectl get printed no rows:\n%s", out)
	}
	header := lines[0]
	// Columns start where a header word starts after two spaces.
	var starts []int
	var names []string
	for i := 0; i < len(header); {
		if header[i] != ' ' && (i == 0 || (i >= 2 && header[i-1] == ' ' && header[i-2] == ' ')) {
			end := strings.Index(header[i:], "  ")
			if end < 0 {
				end = len(header) - i
			}
			starts = append(starts, i)
			names = append(names, header[i:i+end])
			i += end
			continue
		}
		i++
	}
	var rows []map[string]string
	for _, line := range lines[1:] {
		row := map[string]string{}
		for j, s := range starts {
			end := len(line)
			if j+1 < len(starts) && starts[j+1] < len(line) {
				end = starts[j+1]
			}
			if s < len(line) {
				row[names[j]] = strings.TrimSpace(line[s:min(end, len(line))])
			}
		}
		rows = append(rows, row)
	}
	return rows
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

func tryKubectl(args ...string) string {
	out, err := exec.Command(env["KUBECTL"], append([]string{"--kubeconfig", env["KUBECONFIG"]}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s(%v)", out, err)
	}
	return string(out)
}

// checkLogServer fails the test if serving logs went wrong.
func checkLogServer(t *testing.T) {
	t.Helper()
	for _, err := range logs.errors() {
		t.Errorf("log server: %v", err)
	}
}
