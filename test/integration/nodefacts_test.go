package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
	"github.com/benchwright/benchwright/test/util"
)

// managerImage stands for the manager's image, whose /benchwright runs the
// node-facts step; the fake kubelet runs the CLI built from this checkout
// in its place.
const managerImage = "registry.example/manager:test"

var cli struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// benchwrightCLI builds ./cmd/benchwright once for the whole run.
func benchwrightCLI(t *testing.T) string {
	t.Helper()
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "benchwright-cli-")
		if err != nil {
			cli.err = err
			return
		}
		cli.dir, cli.path = dir, filepath.Join(dir, "benchwright")
		build := exec.Command("go", "build", "-o", cli.path, "./cmd/benchwright")
		build.Dir = util.RepoRoot()
		cli.out, cli.err = build.CombinedOutput()
	})
	if cli.err != nil {
		t.Fatalf("building the CLI: %v\n%s", cli.err, cli.out)
	}
	return cli.path
}

// removeCLI removes the CLI benchwrightCLI built (173 MB), once the run is
// over.
func removeCLI() {
	if cli.dir != "" {
		_ = os.RemoveAll(cli.dir)
	}
}

// The firewall rule count comes from the tuner, through the TuningProfile's
// status: a node's count when a profile tunes it, "unknown" otherwise.
func TestDescribeNodeRecordsTheTunersFirewallCount(t *testing.T) {
	ctx := context.Background()
	createNode(t, "facts-node-a", "c2-standard-60")
	info, err := runstore.DescribeNode(ctx, k8sClient, "facts-node-a", "")
	if err != nil || info.FirewallRules != results.FirewallUnknown {
		t.Fatalf("without tuning: firewall_rules %q (%v), want unknown", info.FirewallRules, err)
	}
	prof := &benchv1.TuningProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "facts-latency"},
		Spec: benchv1.TuningProfileSpec{
			NodeSelector: map[string]string{benchv1.BenchmarkNodeLabel: "true"},
			Preset:       "network-latency",
		},
	}
	if err := k8sClient.Create(ctx, prof); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), prof) })
	prof.Status.Nodes = []benchv1.NodeTuningStatus{{Node: "facts-node-a", Tuned: true, FirewallRules: ptr.To[int32](0)}, {Node: "facts-node-b", Tuned: true}}
	if err := k8sClient.Status().Update(ctx, prof); err != nil {
		t.Fatal(err)
	}
	info, err = runstore.DescribeNode(ctx, k8sClient, "facts-node-a", "facts-latency")
	if err != nil || info.FirewallRules != "0" || info.Tuning != "facts-latency" {
		t.Errorf("tuned: firewall_rules %q, tuning %q (%v), want 0 and facts-latency", info.FirewallRules, info.Tuning, err)
	}
	// A node the tuner could not count on.
	createNode(t, "facts-node-b", "c2-standard-60")
	if info, err = runstore.DescribeNode(ctx, k8sClient, "facts-node-b", "facts-latency"); err != nil || info.FirewallRules != results.FirewallUnknown {
		t.Errorf("uncounted: firewall_rules %q (%v), want unknown", info.FirewallRules, err)
	}
}
