package util

import (
	"bytes"
	"context"
	"fmt"
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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// PollInterval is how often WaitFor checks.
const PollInterval = 100 * time.Millisecond

// WaitFor is the tests' one wait: it calls check every PollInterval until
// check returns true, and fails the test after timeout with what it waited
// for and the message of check's last call (what it last saw). check may
// fail the test itself when waiting longer is pointless.
func WaitFor(tb testing.TB, timeout time.Duration, what string, check func() (done bool, lastSeen string)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, msg := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %s; last seen: %s", what, timeout, msg)
			return
		}
		time.Sleep(PollInterval)
	}
}

// LoadExample reads a YAML file of examples/ into obj, strictly: a field the
// API does not have fails the test.
func LoadExample(tb testing.TB, name string, obj client.Object) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(RepoRoot(), "examples", name))
	if err != nil {
		tb.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		tb.Fatalf("examples/%s: %v", name, err)
	}
}

// Kubectl runs a real kubectl against one cluster.
type Kubectl struct {
	Bin, Kubeconfig string
}

// Run runs kubectl with args and returns its output; an error fails the test.
func (k Kubectl) Run(tb testing.TB, args ...string) string {
	tb.Helper()
	cmd := exec.Command(k.Bin, append([]string{"--kubeconfig", k.Kubeconfig}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// Try runs kubectl with args and returns what it printed, errors included.
func (k Kubectl) Try(args ...string) string {
	out, err := exec.Command(k.Bin, append([]string{"--kubeconfig", k.Kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s(%v)", out, err)
	}
	return string(out)
}

// Table parses kubectl get's output into rows of column -> value.
func Table(tb testing.TB, out string) []map[string]string {
	tb.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		tb.Fatalf("kubectl get printed no rows:\n%s", out)
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

// TestOwnedLabel marks an object a test made for a benchmark to use (a
// user's claim): Children leaves it out.
const TestOwnedLabel = "test.benchwright.io/owned"

// Children lists what a benchmark's deletion must take away in ns: every
// pod, Job, MPIJob, PVC, ConfigMap, Secret and Service but the namespace's
// own (kube-root-ca.crt) and the test's own (TestOwnedLabel). A test that gives each benchmark a namespace of its
// own sees grandchildren here too (the MPI Operator's hostfile, keys, Service).
func Children(ctx context.Context, c client.Client, ns string) (map[string][]string, error) {
	lists := map[string]client.ObjectList{
		"pods": &corev1.PodList{}, "jobs": &batchv1.JobList{}, "mpijobs": &mpiv2.MPIJobList{},
		"pvcs": &corev1.PersistentVolumeClaimList{}, "configmaps": &corev1.ConfigMapList{},
		"secrets": &corev1.SecretList{}, "services": &corev1.ServiceList{},
	}
	out := map[string][]string{}
	for kind, list := range lists {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			o := it.(client.Object)
			if (kind == "configmaps" && o.GetName() == "kube-root-ca.crt") || o.GetLabels()[TestOwnedLabel] != "" {
				continue
			}
			out[kind] = append(out[kind], o.GetName())
		}
	}
	return out, nil
}

// DeleteAndWaitGone deletes b and waits until neither it nor anything of its
// namespace (Children) is left.
func DeleteAndWaitGone(tb testing.TB, c client.Client, b client.Object, timeout time.Duration) {
	tb.Helper()
	ctx := context.Background()
	before, err := Children(ctx, c, b.GetNamespace())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("children of %s before deletion: %v", b.GetName(), before)
	if err := c.Delete(ctx, b); err != nil {
		tb.Fatal(err)
	}
	began := time.Now()
	WaitFor(tb, timeout, "deletion of "+b.GetName()+" and every child", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(b), b); err == nil {
			return false, "the benchmark is still there (finalizers " + strings.Join(b.GetFinalizers(), ",") + ")"
		}
		left, err := Children(ctx, c, b.GetNamespace())
		if err != nil {
			return false, err.Error()
		}
		return len(left) == 0, fmt.Sprintf("left: %v", left)
	})
	tb.Logf("%s and its children gone %s after deletion", b.GetName(), time.Since(began).Round(10*time.Millisecond))
}

// RunScript runs a cluster script (hack/dev-cluster.sh, hack/real-cluster.sh)
// with its output on stderr.
func RunScript(script string, args ...string) error {
	cmd := exec.Command(script, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// UpCluster brings the cluster of script up. A running one gets up alone
// (idempotent). Otherwise down comes first: a run killed before its own down
// (CI's time limit, a session's end, ^C) leaves the cluster's state behind
// with its processes gone, and up would start that state again, its objects
// with it (a pool still holding both nodes, benchmarks half run) for every
// test after to wait on.
func UpCluster(script string, running bool) error {
	if !running {
		if err := RunScript(script, "down"); err != nil {
			return fmt.Errorf("down before up: %w", err)
		}
	}
	return RunScript(script, "up")
}

// ScriptEnv is what `SCRIPT env` prints (export NAME=VALUE lines, values
// quoted by bash's printf %q), if the cluster is up: ok tells KUBECONFIG is set.
func ScriptEnv(script string) (vars map[string]string, ok bool) {
	out, err := exec.Command(script, "env").Output()
	if err != nil {
		return nil, false
	}
	vars = map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, found := strings.Cut(strings.TrimPrefix(line, "export "), "="); found {
			vars[k] = unquote(v)
		}
	}
	return vars, vars["KUBECONFIG"] != ""
}

// unquote undoes bash's printf %q for values without quotes: a backslash
// escapes the character after it.
func unquote(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
