package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/util"
)

// A small fio run: two jobs of a second each.
const smallFio = `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 2
volumes: {emptyDir: {}}
fio:
  size: 8M
  runtime: 1s
  jobs:
  - {name: randread-4k-qd4, rw: randread, blockSize: 4k, ioDepth: 4, ioEngine: libaio}
  - {name: write-1m, rw: write, blockSize: 1M, ioDepth: 1, ioEngine: psync}
`

func TestStorageBenchmarkRunsFio(t *testing.T) {
	requireTool(t, "fio")
	createNode(t, "node-a", "n2-standard-4")
	env := newStorageEnv(t, nil)
	spec := smallFio + `expectations:
- {test: randread-4k-qd4, metric: read_iops, atLeast: 1}
- {test: write-1m, metric: write_bw, atMost: 0.001}
`
	b := waitFinished(t, env.createBenchmark(t, "fio", spec), 90*time.Second)

	if c := condition(t, b, benchv1.ConditionSucceeded); c.Status != metav1.ConditionTrue {
		t.Fatalf("Succeeded = %s: %s; Failed: %+v", c.Status, c.Message, b.Status.Conditions)
	}
	if status, err := yaml.Marshal(b.Status); err == nil {
		t.Logf("status:\n%s", status)
	}
	st := b.Status
	if st.State != benchv1.StateSucceeded || st.Progress != "2/2" || st.CompletedRepetitions != 2 || st.Retries != 0 {
		t.Errorf("state %q progress %q completed %d retries %d", st.State, st.Progress, st.CompletedRepetitions, st.Retries)
	}
	if st.MachineType != "n2-standard-4" || !slices.Equal(st.Nodes, []string{"node-a"}) || st.Volumes != "emptyDir" {
		t.Errorf("machineType %q nodes %v volumes %q", st.MachineType, st.Nodes, st.Volumes)
	}
	if st.StartTime == nil || st.CompletionTime == nil || !strings.HasPrefix(st.ArtifactURI, "file://") {
		t.Errorf("startTime %v completionTime %v artifactURI %q", st.StartTime, st.CompletionTime, st.ArtifactURI)
	}
	if !strings.HasSuffix(st.Headline, " IOPS randread-4k-qd4") {
		t.Errorf("headline %q, want the random-read IOPS", st.Headline)
	}

	// The status figures are fio's own: the median over the two raw logs.
	raw := rawLogs(t, env.store, b)
	if len(raw) != 2 {
		t.Fatalf("%d raw logs stored, want 2 (one per repetition)", len(raw))
	}
	var iops []float64
	for _, log := range raw {
		samples, err := fio.ParseJSON(log)
		if err != nil {
			t.Fatalf("stored raw log does not parse: %v", err)
		}
		for _, s := range samples {
			if s.Test == "randread-4k-qd4" && s.Metric == "read_iops" {
				iops = append(iops, s.Value)
			}
		}
	}
	want := results.Compute(iops)
	got := st.Results[0]
	if got.Test != "randread-4k-qd4" || got.Read == nil || got.Read.IOPS == nil {
		t.Fatalf("results[0] = %+v", got)
	}
	if g := got.Read.IOPS; g.Median != want.Median || g.Min != want.Min || g.Max != want.Max || g.N != 2 {
		t.Errorf("read IOPS %+v, fio printed %v", *g, iops)
	}
	if got.Read.LatencyP99Microseconds == nil || got.Read.LatencyMeanMicroseconds == nil {
		t.Errorf("latency figures missing: %+v", got.Read)
	}
	if w := st.Results[1]; w.Test != "write-1m" || w.Write == nil || w.Write.BandwidthMiBps == nil || w.Read != nil {
		t.Errorf("results[1] = %+v", w)
	}

	checkStoredResults(t, env.store, b, 2)
	// The node facts came from the step's termination message, in the pod's
	// status: its log was never read.
	if n := env.kubelet.logsRead(children.NodeFactsContainer); n != 0 {
		t.Errorf("the node-facts step's log was read %d times", n)
	}
	checkChildren(t, b)
	// One expectation holds, the other names the figure that fails it.
	if c := condition(t, b, benchv1.ConditionMeetsExpectations); c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonExpectationsFailed ||
		!strings.HasPrefix(c.Message, "1 of 2 expectations fail: write-1m write_bw = ") || !strings.Contains(c.Message, "MiB/s (at most 0.001): above 0.001") {
		t.Errorf("MeetsExpectations %+v", c)
	}

	// What a person sees.
	get := kubectl(t, "get", "sbench", "-n", env.ns)
	t.Logf("kubectl get sbench:\n%s", get)
	header, row, _ := strings.Cut(strings.TrimSpace(get), "\n")
	if strings.Join(strings.Fields(header), " ") != "NAME VOLUMES NODES PROGRESS RESULT STATE QUEUE AGE" ||
		!strings.Contains(row, "emptyDir") || !strings.Contains(row, "2/2") || !strings.Contains(row, st.Headline) || !strings.Contains(row, "Succeeded") {
		t.Errorf("kubectl get sbench:\n%s", get)
	}
	// The CLI finds the benchmark in the cluster and reads its figures from
	// the store its status names.
	cli := filepath.Join(t.TempDir(), "benchwright")
	build := exec.Command("go", "build", "-o", cli, "./cmd/benchwright")
	build.Dir = util.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	results := exec.Command(cli, "results", "fio", "-n", env.ns)
	results.Env = append(os.Environ(), "KUBECONFIG="+writeKubeconfig(t, t.TempDir()))
	if out, err := results.CombinedOutput(); err != nil || !strings.Contains(string(out), "randread-4k-qd4") || !strings.Contains(string(out), "read_iops") {
		t.Errorf("benchwright results fio: %v\n%s", err, out)
	} else {
		t.Logf("benchwright results fio -n %s:\n%s", env.ns, out)
	}
	waitEvents(t, env.ns, b.Name, "Normal/Created", "Normal/RepetitionCompleted", "Normal/Succeeded")
}

// rawLogs returns the stored raw logs of a benchmark, in key order.
func rawLogs(t *testing.T, store *artifacts.Store, b *benchv1.StorageBenchmark) [][]byte {
	t.Helper()
	prefix, err := storageLocation(b).Prefix()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := store.List(context.Background(), prefix+"raw/")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, k := range keys {
		data, err := store.Get(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

func storageLocation(b *benchv1.StorageBenchmark) artifacts.Location {
	return artifacts.Location{Namespace: b.Namespace, Kind: "StorageBenchmark", Name: b.Name, UID: string(b.UID)}
}

// checkStoredResults reads samples, summary and nodes back from the store.
func checkStoredResults(t *testing.T, store *artifacts.Store, b *benchv1.StorageBenchmark, reps int) {
	t.Helper()
	ctx := context.Background()
	loc := storageLocation(b)
	key, _ := loc.SamplesNDJSON()
	data, err := store.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, s := range samples {
		seen[s.Repetition] = true
		if s.RunUID != string(b.UID) || s.Benchmark != b.Name || s.Labels[results.LabelNode] == "" || s.Labels[results.LabelMachineType] == "" || s.Labels[results.LabelAttempt] == "" {
			t.Fatalf("sample lacks run facts: %+v", s)
		}
		// The node-facts step read the frequency as the repetition started.
		if mhz, err := strconv.ParseFloat(s.Labels[results.LabelCPUMHz], 64); err != nil || mhz <= 0 || s.Labels[results.LabelFirewallRules] != results.FirewallUnknown {
			t.Fatalf("sample lacks the node facts (cpu_mhz, firewall_rules): %+v", s.Labels)
		}
	}
	if len(seen) != reps {
		t.Errorf("samples cover repetitions %v, want %d", seen, reps)
	}
	for _, k := range []func() (string, error){loc.SamplesCSV, loc.Summary, loc.Nodes, loc.Report} {
		key, _ := k()
		if ok, err := store.Exists(ctx, key); err != nil || !ok {
			t.Errorf("%s not stored (%v)", key, err)
		}
	}
	key, _ = loc.Summary()
	data, err = store.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var sum results.RunSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Name != b.Name || len(sum.Summaries) == 0 || len(sum.Nodes) == 0 || sum.Nodes[0].MachineType == "" || sum.Nodes[0].Kernel == "" {
		t.Fatalf("summary.json: %+v", sum)
	}
	key, _ = loc.Nodes()
	data, err = store.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []results.NodeInfo
	if err := json.Unmarshal(data, &nodes); err != nil || len(nodes) == 0 {
		t.Fatalf("nodes.json: %v\n%s", err, data)
	}
	for _, n := range nodes {
		if f := n.Facts; f == nil || f.CPUMHz <= 0 || f.Network != "pod" || f.SELinux == "" || n.FirewallRules != results.FirewallUnknown {
			t.Errorf("nodes.json lacks the node facts:\n%s", data)
		}
	}
}

// checkChildren checks that every child is controlled by the benchmark, so
// that deleting it deletes them (the garbage collector is not part of envtest).
func checkChildren(t *testing.T, b *benchv1.StorageBenchmark) {
	t.Helper()
	ctx := context.Background()
	sel := client.MatchingLabels{benchv1.BenchmarkLabel: b.Name}
	var jobs batchv1.JobList
	var pvcs corev1.PersistentVolumeClaimList
	for _, l := range []client.ObjectList{&jobs, &pvcs} {
		if err := k8sClient.List(ctx, l, client.InNamespace(b.Namespace), sel); err != nil {
			t.Fatal(err)
		}
	}
	var objs []metav1.Object
	for i := range jobs.Items {
		objs = append(objs, &jobs.Items[i])
	}
	for i := range pvcs.Items {
		objs = append(objs, &pvcs.Items[i])
	}
	if len(jobs.Items) == 0 {
		t.Fatal("no Jobs")
	}
	for _, o := range objs {
		ref := metav1.GetControllerOf(o)
		if ref == nil || ref.UID != b.UID || ref.Kind != "StorageBenchmark" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("%s is not controlled by the benchmark: %+v", o.GetName(), o.GetOwnerReferences())
		}
	}
	for _, j := range jobs.Items {
		pod := j.Spec.Template.Spec
		if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
			t.Errorf("Job %s mounts a service account token", j.Name)
		}
		if pod.NodeSelector["kubernetes.io/os"] != "linux" {
			t.Errorf("Job %s node selector %v", j.Name, pod.NodeSelector)
		}
	}
}
