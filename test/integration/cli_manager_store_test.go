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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// TestCLIReadsTheManagersOwnStore: a benchmark whose results sit in the
// manager's file:// volume (not on this machine) is read by `benchwright
// results` through the API server's service proxy to the manager's artifact
// server — the real proxy, to a real server listening on this host.
func TestCLIReadsTheManagersOwnStore(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "cli-proxy-")
	hostIP := nonLoopbackIP(t)

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

	// The manager's artifact server on this host, behind a Service without
	// a selector whose endpoints name it.
	lis, err := net.Listen("tcp", net.JoinHostPort(hostIP, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: artifactserver.New(store, testr.New(t)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := lis.Addr().(*net.TCPAddr).Port
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "manager", Namespace: ns},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "artifacts", Port: 8082, TargetPort: intstr.FromInt32(int32(port))}}},
	}
	// The API server proxies only to an endpoint whose target pod has its IP.
	pod := wrappers.MakePod("manager-0", ns).Container("manager", "manager").Obj()
	if err := k8sClient.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: hostIP, PodIPs: []corev1.PodIP{{IP: hostIP}}}
	if err := k8sClient.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	eps := &corev1.Endpoints{ //nolint:staticcheck // the service proxy resolves v1 Endpoints
		ObjectMeta: metav1.ObjectMeta{Name: "manager", Namespace: ns},
		Subsets: []corev1.EndpointSubset{{ //nolint:staticcheck
			Addresses: []corev1.EndpointAddress{{IP: hostIP, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: pod.Name}}},
			Ports:     []corev1.EndpointPort{{Name: "artifacts", Port: int32(port)}},
		}},
	}
	if err := k8sClient.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Create(ctx, eps); err != nil {
		t.Fatal(err)
	}

	cli := filepath.Join(t.TempDir(), "benchwright")
	build := exec.Command("go", "build", "-o", cli, "./cmd/benchwright")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	results := exec.Command(cli, "results", b.Name, "-n", ns, "--manager", ns+"/manager")
	results.Env = append(os.Environ(), "KUBECONFIG="+writeKubeconfig(t, t.TempDir()))
	out, err := results.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "randread-4k") || !strings.Contains(string(out), "412,345") {
		t.Fatalf("benchwright results through the manager: %v\n%s", err, out)
	}
	t.Logf("benchwright results %s -n %s (through the API server's proxy):\n%s", b.Name, ns, out)

	// A manager that is not there is named, with the port-forward way out.
	results = exec.Command(cli, "results", b.Name, "-n", ns, "--manager", ns+"/nowhere")
	results.Env = append(os.Environ(), "KUBECONFIG="+writeKubeconfig(t, t.TempDir()))
	if out, err := results.CombinedOutput(); err == nil || !strings.Contains(string(out), "service "+ns+"/nowhere") || !strings.Contains(string(out), "port-forward") {
		t.Errorf("without the manager: %v\n%s", err, out)
	}
}

// nonLoopbackIP is an address of this host the API server may proxy to (it
// refuses loopback and link-local ones).
func nonLoopbackIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address to serve the proxied artifact server on")
	return ""
}
