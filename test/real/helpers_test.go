//go:build real

package real

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// newNamespace is a namespace of the test's own, deleted when it ends (unless
// it failed and REAL_KEEP is set, to look at).
func newNamespace(t testing.TB) string {
	t.Helper()
	name := "real-" + strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(t.Name(), "Test"), "Benchmark"))
	name = strings.NewReplacer("/", "-", "_", "-").Replace(name)
	if len(name) > 40 {
		name = name[:40]
	}
	name += "-" + rand.String(5)
	if err := k8s.Create(ctx(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			diagnose(t, name)
			if os.Getenv("REAL_KEEP") != "" {
				return
			}
		}
		_ = k8s.Delete(ctx(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
	return name
}

// readExample is a file of examples/.
func readExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(util.RepoRoot(), "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// waitFinished waits until the benchmark has condition Succeeded or Failed
// and returns which, with its reason and message.
func waitFinished(t testing.TB, b client.Object, st *benchv1.BenchmarkStatusCommon, timeout time.Duration) metav1.Condition {
	t.Helper()
	began := time.Now()
	var done metav1.Condition
	util.WaitFor(t, timeout, fmt.Sprintf("%T %s finished", b, b.GetName()), func() (bool, string) {
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(b), b); err != nil {
			return false, err.Error()
		}
		for _, typ := range []string{benchv1.ConditionSucceeded, benchv1.ConditionFailed} {
			if c := meta.FindStatusCondition(st.Conditions, typ); c != nil && c.Status == metav1.ConditionTrue {
				done = *c
				return true, ""
			}
		}
		return false, fmt.Sprintf("state %q, progress %s", st.State, st.Progress)
	})
	t.Logf("%s %s after %s: %s", b.GetName(), done.Type, time.Since(began).Round(10*time.Millisecond), done.Message)
	return done
}

// waitSucceeded waits for Succeeded and fails the test on Failed.
func waitSucceeded(t testing.TB, b client.Object, st *benchv1.BenchmarkStatusCommon, timeout time.Duration) {
	t.Helper()
	if c := waitFinished(t, b, st, timeout); c.Type != benchv1.ConditionSucceeded {
		t.Fatalf("%s failed: %s: %s", b.GetName(), c.Reason, c.Message)
	}
}

// diagnose logs what helps to understand a failed test: the namespace's
// objects and events, and the manager's log tail.
func diagnose(t testing.TB, ns string) {
	t.Logf("kubectl get storagebenchmarks,jobs,pods,pvc -n %s -o wide:\n%s", ns,
		kc.Try("get", "storagebenchmarks,jobs,pods,pvc", "-n", ns, "-o", "wide"))
	t.Logf("events in %s:\n%s", ns, kc.Try("get", "events", "-n", ns, "--sort-by", ".lastTimestamp"))
	t.Logf("manager log, last lines:\n%s", kc.Try("logs", "-n", env["SYSTEM_NAMESPACE"], "deploy/benchwright-manager", "--tail", "40"))
}

// storeDir is the directory on this host that holds a file:// artifact URI
// of the manager: its store is a local volume (REAL_VOLUMES/manager-store)
// mounted at /var/lib/benchwright in the manager's pod.
func storeDir(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	const mount = "/var/lib/benchwright/"
	if err != nil || u.Scheme != "file" || !strings.HasPrefix(u.Path, mount) {
		t.Fatalf("artifactURI %q is not in the manager's file store under %s", uri, mount)
	}
	return filepath.Join(env["REAL_VOLUMES"], "manager-store", strings.TrimPrefix(u.Path, mount))
}

// rawLogs are the stored raw logs of a run, by repetition, pod name and content.
func rawLogs(t *testing.T, uri string) map[string][]byte {
	t.Helper()
	dir := storeDir(t, uri)
	files, err := filepath.Glob(filepath.Join(dir, "raw", "*", "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no raw logs under %s/raw (%v)", dir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join(dir, "raw"), f)
		out[rel] = data
	}
	return out
}

// summarize is the median, min and max of samples per test and metric.
func summarize(samples []results.Sample) map[string]results.Stats {
	values := map[string][]float64{}
	for _, s := range samples {
		values[s.Test+" "+s.Metric] = append(values[s.Test+" "+s.Metric], s.Value)
	}
	out := map[string]results.Stats{}
	for k, v := range values {
		out[k] = results.Compute(v)
	}
	return out
}

// statusFigures flattens a StorageBenchmark's results to "test metric" -> Stat,
// with the metric names of the samples (read_iops, write_bw, read_clat_p99, ...).
func statusFigures(b *benchv1.StorageBenchmark) map[string]benchv1.Stat {
	out := map[string]benchv1.Stat{}
	for _, r := range b.Status.Results {
		for dir, d := range map[string]*benchv1.DirectionResult{"read": r.Read, "write": r.Write} {
			if d == nil {
				continue
			}
			for suffix, s := range map[string]*benchv1.Stat{
				"iops": d.IOPS, "bw": d.BandwidthMiBps, "clat_mean": d.LatencyMeanMicroseconds,
				"clat_p50": d.LatencyP50Microseconds, "clat_p99": d.LatencyP99Microseconds, "clat_p99.9": d.LatencyP999Microseconds,
			} {
				if s != nil {
					out[r.Test+" "+dir+"_"+suffix] = *s
				}
			}
		}
	}
	return out
}

// checkFiguresEqual fails for every status figure that is not the median,
// min and max over the raw logs' samples, and for a status without figures.
func checkFiguresEqual(t *testing.T, b *benchv1.StorageBenchmark, fromLogs map[string]results.Stats) {
	t.Helper()
	status := statusFigures(b)
	if len(status) == 0 {
		t.Fatalf("%s has no figures in its status", b.Name)
	}
	keys := make([]string, 0, len(status))
	for k := range status {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s, want := status[k], fromLogs[k]
		if want.N == 0 {
			t.Errorf("status figure %s = %v: nothing in the raw logs", k, s.Median)
			continue
		}
		if s.Median != want.Median || s.Min != want.Min || s.Max != want.Max || int(s.N) != want.N {
			t.Errorf("status figure %s: median %v min %v max %v n %d; the raw logs give %v %v %v n %d",
				k, s.Median, s.Min, s.Max, s.N, want.Median, want.Min, want.Max, want.N)
		}
	}
	t.Logf("%d status figures equal the raw logs' (e.g. %s)", len(status), keys[0])
}
