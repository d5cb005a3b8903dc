package integration

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/benchwright/benchwright/internal/yamldoc"
	"github.com/benchwright/benchwright/test/util"
)

// TestManagerServesProbesAndElectsLeader builds cmd/manager, runs it against the
// real API server and checks its probes, its metrics (HTTPS, for a reader's
// token only) and its leader-election Lease.
func TestManagerServesProbesAndElectsLeader(t *testing.T) {
	ctx := testContext(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "manager")
	build := exec.Command("go", "build", "-o", bin, "./cmd/manager")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the manager: %v\n%s", err, out)
	}
	kubeconfig := writeKubeconfig(t, dir)
	probe, metrics, files := freePort(t), freePort(t), freePort(t)
	cmd := exec.CommandContext(ctx, bin,
		"--kubeconfig="+kubeconfig,
		"--leader-elect", "--leader-election-namespace=default",
		"--artifact-store=file://"+t.TempDir(),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", probe),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metrics),
		fmt.Sprintf("--artifact-server-bind-address=127.0.0.1:%d", files))
	logs, err := os.Create(filepath.Join(dir, "manager.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(logs.Name())
			t.Logf("manager log:\n%s", out)
		}
	})

	for _, url := range []string{
		fmt.Sprintf("http://127.0.0.1:%d/healthz", probe),
		fmt.Sprintf("http://127.0.0.1:%d/readyz", probe),
		fmt.Sprintf("http://127.0.0.1:%d/", files), // the artifact store, read-only
	} {
		waitForOK(t, url)
	}
	checkMetricsNeedAReader(ctx, t, fmt.Sprintf("https://127.0.0.1:%d/metrics", metrics))
	lease := &coordinationv1.Lease{}
	util.WaitFor(t, 30*time.Second, "a leader-election Lease held", func() (bool, string) {
		err := k8sClient.Get(ctx, client.ObjectKey{Namespace: "default", Name: "manager.benchwright.io"}, lease)
		if err != nil {
			return false, err.Error()
		}
		return lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "", fmt.Sprintf("holder %v", lease.Spec.HolderIdentity)
	})
}

// TestConfigManifestsAreAccepted renders config/'s parts (what the chart is
// generated from) with kubectl kustomize and has the API server validate
// every object (dry run, strict fields).
func TestConfigManifestsAreAccepted(t *testing.T) {
	ctx := testContext(t)
	kubectl := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	var objs []*unstructured.Unstructured
	for _, dir := range []string{"manager", "crd", "rbac"} { // the namespace first
		out, err := exec.Command(kubectl, "kustomize", filepath.Join(util.RepoRoot(), "config", dir)).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize config/%s: %v", dir, err)
		}
		part, err := yamldoc.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, part...)
	}
	kinds := map[string]int{}
	for _, obj := range objs {
		kinds[obj.GetKind()]++
		if obj.GetKind() == "CustomResourceDefinition" {
			continue // installed by envtest already
		}
		if obj.GetKind() != "Namespace" && obj.GetNamespace() != "" {
			util.EnsureNamespace(ctx, t, k8sClient, obj.GetNamespace())
		}
		if err := k8sClient.Create(ctx, obj, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	for _, kind := range []string{"CustomResourceDefinition", "Deployment", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"} {
		if kinds[kind] == 0 {
			t.Errorf("config/ has no %s", kind)
		}
	}
	if kinds["CustomResourceDefinition"] != 4 {
		t.Errorf("config/ has %d CRDs, want 4", kinds["CustomResourceDefinition"])
	}
}

func writeKubeconfig(t *testing.T, dir string) string {
	t.Helper()
	user, err := testEnv.AddUser(envtest.User{Name: "manager-test", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

func waitForOK(t *testing.T, url string) {
	t.Helper()
	util.WaitFor(t, 60*time.Second, url+" OK", func() (bool, string) {
		resp, err := http.Get(url)
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
}
