//go:build real

package real

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// The real tuner on the real nodes: an existing BenchmarkPool over both
// nodes, and the net.* sysctls of examples/tuning/network-latency.yaml that
// a network namespace has of its own (tcp_rmem, tcp_wmem: they change the
// nodes' namespaces, not this machine; net.core.busy_poll and busy_read
// exist only in the machine's first namespace). The values read back inside
// each node's namespace are the spec's while the profile exists, and the
// originals after it is deleted.
func TestTuningOnRealNodes(t *testing.T) {
	example := &benchv1.TuningProfile{}
	util.LoadExample(t, "tuning/network-latency.yaml", example)
	var sysctls []benchv1.Sysctl
	for _, s := range example.Spec.Sysctls {
		if !strings.HasPrefix(s.Name, "net.") {
			continue
		}
		if exec.Command("nsenter", "--net=/run/netns/"+nodeNetns(0), "sysctl", "-n", s.Name).Run() != nil {
			t.Logf("%s: not in a node's network namespace (the machine's own): left out", s.Name)
			continue
		}
		sysctls = append(sysctls, s)
	}
	if len(sysctls) == 0 {
		t.Fatal("examples/tuning/network-latency.yaml has no net.* sysctls of a network namespace")
	}
	original := readSysctls(t, sysctls)
	for i, s := range sysctls {
		if original[0][s.Name] == normalize(s.Value) {
			t.Fatalf("node %s already has %s = %q: the test would prove nothing (sysctl %d)", nodes()[0], s.Name, s.Value, i)
		}
	}

	pool := "real-tuning"
	existingPool(t, pool)
	profile := &benchv1.TuningProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "real-network-latency"},
		Spec:       benchv1.TuningProfileSpec{Pool: benchv1.PoolName(pool), Sysctls: sysctls},
	}
	if err := k8s.Create(ctx(), profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx(), profile) })

	began := time.Now()
	util.WaitFor(t, 3*time.Minute, "TuningProfile "+profile.Name+" Tuned on every node", func() (bool, string) {
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(profile), profile); err != nil {
			return false, err.Error()
		}
		st := profile.Status
		return st.State == "Tuned" && int(st.TunedNodes) == len(nodes()),
			fmt.Sprintf("state %q, tuned %d of %d: %+v", st.State, st.TunedNodes, st.DesiredNodes, st.Nodes)
	})
	t.Logf("Tuned on %d nodes after %s", profile.Status.TunedNodes, time.Since(began).Round(100*time.Millisecond))
	out := kc.Run(t, "get", "tuningprofiles")
	t.Logf("kubectl get tuningprofiles:\n%s", out)

	// The tuner pods run from the tuner image, one per node of the pool.
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods, client.InNamespace(env["SYSTEM_NAMESPACE"]), client.MatchingLabels{benchv1.TuningProfileLabel: profile.Name}); err != nil {
		t.Fatal(err)
	}
	onNode := map[string]bool{}
	for _, p := range pods.Items {
		onNode[p.Spec.NodeName] = true
		if img := p.Spec.Containers[0].Image; img != env["IMAGE_TUNER"] {
			t.Errorf("tuner pod %s runs %s, want the tuner image %s", p.Name, img, env["IMAGE_TUNER"])
		}
	}
	if len(onNode) != len(nodes()) {
		t.Errorf("tuner pods on %v, want one on each of %v", onNode, nodes())
	}

	tuned := readSysctls(t, sysctls)
	for i := range nodes() {
		for _, s := range sysctls {
			if got := tuned[i][s.Name]; got != normalize(s.Value) {
				t.Errorf("node %s: %s reads %q, want %q", nodes()[i], s.Name, got, s.Value)
			}
		}
	}

	if err := k8s.Delete(ctx(), profile); err != nil {
		t.Fatal(err)
	}
	util.WaitFor(t, 3*time.Minute, "TuningProfile "+profile.Name+" restored and gone", func() (bool, string) {
		err := k8s.Get(ctx(), client.ObjectKeyFromObject(profile), profile)
		return err != nil, fmt.Sprintf("state %q", profile.Status.State)
	})
	restored := readSysctls(t, sysctls)
	for i := range nodes() {
		for _, s := range sysctls {
			if got, want := restored[i][s.Name], original[i][s.Name]; got != want {
				t.Errorf("node %s: %s reads %q after the profile was deleted, want the original %q", nodes()[i], s.Name, got, want)
			}
		}
	}
}

// readSysctls reads each sysctl inside each node's network namespace, as
// node index -> name -> value with single spaces.
func readSysctls(t *testing.T, sysctls []benchv1.Sysctl) []map[string]string {
	t.Helper()
	out := make([]map[string]string, len(nodes()))
	for i := range nodes() {
		out[i] = map[string]string{}
		for _, s := range sysctls {
			v, err := exec.Command("nsenter", "--net=/run/netns/"+nodeNetns(i), "sysctl", "-n", s.Name).Output()
			if err != nil {
				t.Fatalf("reading %s in %s: %v", s.Name, nodeNetns(i), err)
			}
			out[i][s.Name] = normalize(string(v))
		}
	}
	return out
}

// normalize puts single spaces between a value's fields (the kernel prints tabs).
func normalize(v string) string { return strings.Join(strings.Fields(v), " ") }
