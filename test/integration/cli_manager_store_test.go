package integration

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/test/util"
)

// TestCLIReadsTheManagersOwnStore: a benchmark whose results sit in the
// manager's file:// volume (not on this machine) is read by `benchwright
// results` from the manager's plain port as `kubectl port-forward` makes it
// reachable (--artifact-server, a loopback address); without it, the CLI
// says how to port-forward. The API server's service proxy is no way in: it
// forwards no identity, and the port listens on the pod's loopback only.
func TestCLIReadsTheManagersOwnStore(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "cli-proxy-")

	// The benchmark, succeeded, with its run in a store the CLI cannot open.
	data, err := os.ReadFile(filepath.Join(util.RepoRoot(), "examples/quickstart/fio.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var b benchv1.StorageBenchmark
	if err := yaml.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	b.Namespace, b.Name = ns, "c3-randread"
	if err := k8sClient.Create(ctx, &b); err != nil {
		t.Fatal(err)
	}
	store, err := artifacts.Open(ctx, "file://"+filepath.Join(t.TempDir(), "manager-volume"))
	if err != nil {
		t.Fatal(err)
	}
	run := runstore.Run{Store: store, Location: artifacts.Location{Namespace: ns, Kind: "StorageBenchmark", Name: b.Name, UID: string(b.UID)}}
	samples := []results.Sample{{Test: "randread-4k", Metric: "read_iops", Unit: "IOPS", Value: 412345, Benchmark: b.Name, Namespace: ns, Kind: "StorageBenchmark", RunUID: string(b.UID)}}
	if _, err := run.AddRepetition(ctx, 0, samples, nil, results.SummarizeOptions{}); err != nil {
		t.Fatal(err)
	}
	prefix, _ := run.Location.Prefix()
	b.Status.State = benchv1.StateSucceeded
	b.Status.ArtifactURI = "file:///var/lib/benchwright/artifacts/" + prefix
	if err := k8sClient.Status().Update(ctx, &b); err != nil {
		t.Fatal(err)
	}

	// The manager's plain artifact server, as port-forward reaches it.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: artifactserver.New(store, testr.New(t)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Close() })

	cli := filepath.Join(t.TempDir(), "benchwright")
	build := exec.Command("go", "build", "-o", cli, "./cmd/benchwright")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	results := exec.Command(cli, "results", b.Name, "-n", ns, "--manager", ns+"/manager", "--artifact-server", "http://"+lis.Addr().String())
	results.Env = append(os.Environ(), "KUBECONFIG="+writeKubeconfig(t, t.TempDir()))
	out, err := results.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "randread-4k") || !strings.Contains(string(out), "412,345") {
		t.Fatalf("benchwright results through the port-forwarded manager: %v\n%s", err, out)
	}
	t.Logf("benchwright results %s -n %s (port-forwarded):\n%s", b.Name, ns, out)

	// Without it, the CLI forwards the port itself; envtest has no kubelet
	// (and no manager Service here), so it names the port-forward to run.
	results = exec.Command(cli, "results", b.Name, "-n", ns, "--manager", ns+"/manager")
	results.Env = append(os.Environ(), "KUBECONFIG="+writeKubeconfig(t, t.TempDir()))
	if out, err := results.CombinedOutput(); err == nil || !strings.Contains(string(out), "kubectl -n "+ns+" port-forward svc/manager 8082") {
		t.Errorf("without --artifact-server: %v\n%s", err, out)
	}
}
