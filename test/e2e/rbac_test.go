//go:build e2e

package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// The manager runs as the chart's ServiceAccount (hack/dev-cluster.sh gives
// it an impersonating kubeconfig), so every test exercises the chart's RBAC:
// what it lacks fails the manager as it would in a cluster.
func TestManagerActsAsChartServiceAccount(t *testing.T) {
	as := func(args ...string) (string, error) {
		// stdout only: kubectl warns on stderr about cluster-scoped resources.
		out, err := exec.Command(env["KUBECTL"], append([]string{"--kubeconfig", env["MANAGER_KUBECONFIG"]}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	who, err := as("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if err != nil || who != env["MANAGER_SERVICE_ACCOUNT"] {
		t.Fatalf("the manager acts as %q (%v), want %s", who, err, env["MANAGER_SERVICE_ACCOUNT"])
	}
	// The tuners' DaemonSets and ConfigMaps are written in the manager's
	// namespace only (system:serviceaccount:<namespace>:<name>).
	ns := strings.Split(who, ":")[2]
	// Least privilege: it can do its work...
	for _, verb := range [][]string{
		{"create", "jobs.batch", "-A"}, {"create", "mpijobs.kubeflow.org", "-A"}, {"get", "pods/log", "-A"},
		{"patch", "nodes"}, {"update", "storagebenchmarks.benchwright.io", "--subresource=status", "-A"},
		{"create", "configmaps", "-n", ns}, {"patch", "daemonsets.apps", "-n", ns}, {"delete", "configmaps", "-n", ns},
	} {
		if out, _ := as(append([]string{"auth", "can-i"}, verb...)...); out != "yes" {
			t.Errorf("the chart's RBAC: can-i %v = %q, want yes", verb, out)
		}
	}
	// ...and no more.
	for _, verb := range [][]string{
		{"create", "clusterrolebindings"}, {"get", "secrets", "-n", "kube-system"}, {"delete", "nodes"}, {"create", "pods/exec", "-A"},
		{"create", "daemonsets.apps", "-n", "default"}, {"list", "daemonsets.apps", "-A"}, {"patch", "configmaps", "-n", "default"},
		{"delete", "configmaps", "-n", "kube-system"}, {"create", "configmaps", "-A"}, {"list", "configmaps", "-A"},
	} {
		if out, _ := as(append([]string{"auth", "can-i"}, verb...)...); out != "no" {
			t.Errorf("the chart's RBAC: can-i %v = %q, want no", verb, out)
		}
	}
}
