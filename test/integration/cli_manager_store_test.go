package integration

import (
	"context"
	"encoding/json"
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
	"github.com/benchwright/benchwright/internal/sampler"
	"github.com/benchwright/benchwright/test/util"
)

// TestCLIReadsTheManagersOwnStore: a benchmark whose results sit in the
// manager's file:// volume (not on this machine) is read by `benchwright
// results` and `benchwright report` (its series too) from the manager's plain port as `kubectl port-forward` makes it
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
	if err := run.PutMonitor(ctx, 0, b.Name+"-r0-a1", samplerRecord(t, b.Name+"-r0-a1")); err != nil {
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

	// Its report draws what the node did, the series read the same way.
	page := filepath.Join(t.TempDir(), "report.html")
	report := exec.Command(cli, "report", b.Name, "-n", ns, "--manager", ns+"/manager", "--artifact-server", "http://"+lis.Addr().String(), "-o", page)
	report.Env = results.Env
	if out, err := report.CombinedOutput(); err != nil {
		t.Fatalf("benchwright report through the port-forwarded manager: %v\n%s", err, out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<figure class="series">`, "pod " + b.Name + "-r0-a1 on node n1"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report read through the manager has no %q", want)
		}
	}

	// Without it, the CLI forwards the port itself; envtest has no kubelet
	// (and no manager Service here), so it names the port-forward to run.
	results = exec.Command(cli, "results", b.Name, "-n", ns, "--manager", ns+"/manager")
	results.Env = append(os.Environ(), "KUBECONFIG="+writeKubeconfig(t, t.TempDir()))
	if out, err := results.CombinedOutput(); err == nil || !strings.Contains(string(out), "kubectl -n "+ns+" port-forward svc/manager 8082") {
		t.Errorf("without --artifact-server: %v\n%s", err, out)
	}
}

// samplerRecord is a stored series of pod: five points of a half-busy CPU
// on node n1, with randread-4k's phase.
func samplerRecord(t *testing.T, pod string) []byte {
	t.Helper()
	start := time.Now().Add(-time.Minute)
	header := sampler.Header{V: sampler.Version, Start: start.UnixMilli(), Interval: 1, Budget: sampler.DefaultBudget,
		Fields: map[string][]string{"cpu": sampler.CPUFields, "cores": sampler.CoreFields, "mem": sampler.MemFields,
			"psi": sampler.PSIFields, "disk": sampler.DiskFields, "net": sampler.NetFields, "pod": sampler.PodFields}}
	var points []sampler.Point
	for i := 1; i <= 5; i++ {
		points = append(points, sampler.Point{T: start.UnixMilli() + int64(i)*1000, Dt: 1, CPU: []float64{50, 0, 0, 0, 0, 0, 0, 50}})
	}
	data, err := json.Marshal(sampler.Record{Pod: pod, Node: "n1", Series: sampler.Series{Header: header, Points: points},
		Phases: []sampler.Phase{sampler.NewPhase("randread-4k", start.Add(time.Second), start.Add(4*time.Second))}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}
