//go:build real

package real

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// A link a benchmark left under the admin's host directory, leading to the
// node's /, as an earlier benchmark running as root could make it
// (ln -s / <prefix>/x). A later benchmark naming <prefix>/x must not get the
// node's / read-write as root: the kubelet refuses the subPath that leaves
// its volume, the benchmark fails, and nothing is written outside the
// directory. Before the subPath mount, the kubelet followed the link and fio
// wrote its file into the node's /.
func TestHostPathLinkOutOfTheAdminDirectoryIsRefused(t *testing.T) {
	ns := newNamespace(t)
	link := filepath.Join(env["REAL_VOLUMES"], ns+"-escape")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(link) })
	const job = "bw-escape-probe"
	leftInRoot := func() []string {
		found, _ := filepath.Glob("/" + job + "*")
		return found
	}
	t.Cleanup(func() {
		for _, f := range leftInRoot() {
			_ = os.Remove(f)
		}
	})
	b := storageBenchmark(t, ns, "escape", `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
timeouts: {start: 40s}
volumes:
  hostPath: {paths: [`+link+`]}
fio:
  size: 1M
  runtime: 1s
  jobs:
  - {name: `+job+`, rw: write, blockSize: 4k}
`)
	c := waitFinished(t, b, &b.Status.BenchmarkStatusCommon, 3*time.Minute)
	t.Logf("%s: %s/%s: %s", b.Name, c.Type, c.Reason, c.Message)
	if c.Type != benchv1.ConditionFailed {
		t.Errorf("%s: %s/%s, want Failed: the link leads out of the admin's directory", b.Name, c.Type, c.Reason)
	}
	if !strings.Contains(strings.ToLower(c.Message), "subpath") {
		t.Errorf("Failed's message does not say the kubelet refused the subPath:\n%s", c.Message)
	}
	if found := leftInRoot(); len(found) != 0 {
		t.Errorf("fio wrote into the node's /: %v", found)
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// The manager's namespace admits the manager's and the tuner's pods (the
// chart's manager is running, and TestTuning's tuners run there), and nothing
// else: a pod naming the manager's account, as a Workflow submitted there
// would, is refused by the API server.
func TestManagerNamespaceRefusesOtherPods(t *testing.T) {
	system := env["SYSTEM_NAMESPACE"]
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: system, Name: "as-the-manager"},
		Spec: corev1.PodSpec{
			ServiceAccountName: "benchwright-manager",
			Containers:         []corev1.Container{{Name: "c", Image: env["IMAGE_FIO"], Command: []string{"sleep", "60"}}},
			SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true)},
		},
	}
	err := k8s.Create(ctx(), pod)
	if err == nil {
		_ = k8s.Delete(ctx(), pod)
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "admits only the manager's pods") {
		t.Errorf("a pod as the manager in %s: %v, want Forbidden by the chart's policy", system, err)
	}
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods); err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, p := range pods.Items {
		if p.Namespace == system && p.Spec.ServiceAccountName == "benchwright-manager" && p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	if running == 0 {
		t.Errorf("no manager pod runs in %s: the policy refused the chart's own", system)
	}
}

// `benchwright results` reads a run of the manager's own store as a person
// runs it, with no flag but the kubeconfig: the manager's plain artifact port
// listens on its pod's loopback only, and the CLI reaches it through a
// port-forward of its own, made through the API server with the caller's
// credentials, as `kubectl port-forward` would.
func TestCLIResultsThroughItsOwnPortForward(t *testing.T) {
	ns := newNamespace(t)
	b := storageBenchmark(t, ns, "cli-read", `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
volumes: {emptyDir: {}}
fio:
  size: 16M
  runtime: 2s
  jobs:
  - {name: cli-randread, rw: randread, blockSize: 4k}
`)
	waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 3*time.Minute)
	cli := buildCLI(t)
	out, err := exec.Command(cli, "results", b.Name, "-n", ns, "--kubeconfig", env["KUBECONFIG"],
		"--manager", env["SYSTEM_NAMESPACE"]+"/benchwright-manager").CombinedOutput()
	t.Logf("benchwright results %s -n %s:\n%s", b.Name, ns, out)
	if err != nil {
		t.Fatalf("benchwright results without --artifact-server: %v", err)
	}
	if !strings.Contains(string(out), "cli-randread") {
		t.Errorf("the results do not show the job cli-randread")
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// buildCLI builds the benchwright CLI into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	cli := filepath.Join(t.TempDir(), "benchwright")
	build := exec.Command("go", "build", "-o", cli, "./cmd/benchwright")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	return cli
}

// A namespace whose Pod Security refuses the benchmark's pods (hostNetwork
// under "baseline", as the campaign namespace enforces): the Job makes no
// pod and says why only in FailedCreate events. The benchmark fails
// PodsForbidden within seconds, in the admission's words, instead of
// waiting "has no pod yet" until timeouts.start (seen in a campaign).
func TestPodSecurityRefusalFailsAtOnce(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	b := &benchv1.NetworkBenchmark{}
	util.LoadExample(t, "seeds/s2-iperf3-pairs.yaml", b)
	existingPool(t, string(b.Spec.Pool))
	b.Namespace = newNamespace(t)
	var ns corev1.Namespace
	if err := k8s.Get(ctx(), client.ObjectKey{Name: b.Namespace}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels = map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}
	if err := k8s.Update(ctx(), &ns); err != nil {
		t.Fatal(err)
	}
	b.Spec.HostNetwork = true
	b.Spec.Repetitions = 1
	began := time.Now()
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	c := waitFinished(t, b, &b.Status.BenchmarkStatusCommon, 2*time.Minute)
	if c.Type != benchv1.ConditionFailed || c.Reason != benchv1.ReasonPodsForbidden || !strings.Contains(c.Message, "violates PodSecurity") {
		t.Fatalf("%s %s: %s; want Failed PodsForbidden in the admission's words", c.Type, c.Reason, c.Message)
	}
	if took := time.Since(began); took > time.Minute {
		t.Errorf("it failed after %s: want within the refusal grace and a recheck", took.Round(time.Second))
	}
}
