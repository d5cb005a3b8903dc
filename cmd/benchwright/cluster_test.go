package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// writeKubeconfig writes a kubeconfig of two clusters, a (current, in
// namespace team-a) and b (team-b), and c, a context without a namespace.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	const kubeconfig = `apiVersion: v1
kind: Config
current-context: a
clusters:
- name: a
  cluster: {server: "https://a.example:6443"}
- name: b
  cluster: {server: "https://b.example:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: a
  context: {cluster: a, user: u, namespace: team-a}
- name: b
  context: {cluster: b, user: u, namespace: team-b}
- name: c
  context: {cluster: b, user: u}
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// noKubeconfig leaves no kubeconfig to find, outside a pod.
func noKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
}

// parseClusterFlags is clusterFlags after parsing args.
func parseClusterFlags(t *testing.T, args ...string) clusterFlags {
	t.Helper()
	var f clusterFlags
	cmd := &cobra.Command{Use: "x"}
	f.register(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// The namespace and cluster are -n and --context's, else the current
// context's, from --kubeconfig or $KUBECONFIG, as kubectl has them.
func TestClusterFlags(t *testing.T) {
	noKubeconfig(t)
	kc := writeKubeconfig(t)
	for _, tc := range []struct {
		env  string // KUBECONFIG
		args []string
		ns   string
		host string
	}{
		{kc, nil, "team-a", "https://a.example:6443"},
		{"", []string{"--kubeconfig", kc}, "team-a", "https://a.example:6443"},
		{kc, []string{"--context", "b"}, "team-b", "https://b.example:6443"},
		{kc, []string{"--context", "b", "-n", "perf"}, "perf", "https://b.example:6443"},
		{kc, []string{"--namespace", "perf"}, "perf", "https://a.example:6443"},
		{kc, []string{"--context", "c"}, "default", "https://b.example:6443"},
	} {
		if tc.env != "" {
			t.Setenv("KUBECONFIG", tc.env)
		} else {
			noKubeconfig(t)
		}
		f := parseClusterFlags(t, tc.args...)
		ns, err := f.namespace()
		if err != nil || ns != tc.ns {
			t.Errorf("%v: namespace %q, %v; want %q", tc.args, ns, err, tc.ns)
		}
		cfg, err := f.restConfig()
		if err != nil || cfg.Host != tc.host {
			t.Errorf("%v: %v; want the cluster at %s", tc.args, err, tc.host)
		} else if cfg.BearerToken != "t" {
			t.Errorf("%v: token %q, want the user's", tc.args, cfg.BearerToken)
		}
	}

	t.Setenv("KUBECONFIG", kc)
	if _, err := parseClusterFlags(t, "--context", "nope").restConfig(); err == nil || !strings.Contains(err.Error(), `context "nope" does not exist`) {
		t.Errorf("--context nope: %v", err)
	}
	if _, err := parseClusterFlags(t, "--kubeconfig", kc+".missing").restConfig(); err == nil || !strings.Contains(err.Error(), kc+".missing") {
		t.Errorf("--kubeconfig of a missing file: %v", err)
	}
}

// Without a kubeconfig (nor a pod's ServiceAccount) a benchmark name is not
// looked for on localhost:8080, and the error says where a kubeconfig is read
// from; files need no cluster, even with a kubeconfig that does not exist.
func TestNoCluster(t *testing.T) {
	noKubeconfig(t)
	f := parseClusterFlags(t)
	if ns, err := f.namespace(); err != nil || ns != "default" {
		t.Errorf("namespace %q, %v; want default", ns, err)
	}
	_, _, err := runCLI(t, "results", "fio")
	if want := "no cluster to read benchmarks from: no kubeconfig (give --kubeconfig, set KUBECONFIG or write ~/.kube/config), and not in a pod"; err == nil || err.Error() != want {
		t.Errorf("results fio: %v\nwant %s", err, want)
	}
	run := writeRun(t, t.TempDir(), "fio-c2", "c2-standard-60", 1, 100000, 98000, 102000)
	if out, _, err := runCLI(t, "results", "--kubeconfig", "/nonexistent", "--context", "nope", run); err != nil || !strings.Contains(out, "randread-4k") {
		t.Errorf("results of a directory: %v\n%s", err, out)
	}
}

// Only the commands that read benchmarks in a cluster have kubectl's flags.
func TestClusterFlagsOnlyWhereACluster(t *testing.T) {
	for _, c := range newRootCommand().Commands() {
		want := c.Name() == "results" || c.Name() == "compare" || c.Name() == "report" || c.Name() == "history"
		for _, name := range []string{"kubeconfig", "context", "namespace"} {
			if got := c.Flags().Lookup(name) != nil; got != want {
				t.Errorf("%s --%s: %v, want %v", c.Name(), name, got, want)
			}
		}
	}
}
