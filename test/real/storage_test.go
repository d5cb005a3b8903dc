//go:build real

package real

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/fio"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
	"github.com/benchwright/benchwright/test/util"
)

// The quickstart as a person applies it, fio running for real in a pod from
// images/fio: every status figure is the one fio printed, as stored; the
// store holds what the pod printed; a bare fio pod with the same job file on
// the same node measures the same.
func TestQuickstartFio(t *testing.T) {
	ns := newNamespace(t)
	b := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "quickstart/fio.yaml", b)
	b.Namespace = ns
	began, logGETs := time.Now(), podLogGETs(t)
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 5*time.Minute)
	t.Logf("kubectl apply to Succeeded: %s for %d repetitions; the API server served %.0f pods/log GETs meanwhile",
		time.Since(began).Round(100*time.Millisecond), b.Spec.Repetitions, podLogGETs(t)-logGETs)

	raw := rawLogs(t, b.Status.ArtifactURI)
	if len(raw) != int(b.Spec.Repetitions) {
		t.Errorf("%d raw logs stored, want one per repetition (%d): %v", len(raw), b.Spec.Repetitions, keys(raw))
	}
	var samples []results.Sample
	fioIOPS := map[string][]float64{}
	for name, data := range raw {
		s, err := fio.ParseJSON(data)
		if err != nil {
			t.Fatalf("stored raw log %s does not parse: %v", name, err)
		}
		samples = append(samples, s...)
		for job, iops := range readIOPS(t, data) {
			fioIOPS[job] = append(fioIOPS[job], iops)
		}
	}
	checkFiguresEqual(t, b, summarize(samples))
	// Read from fio's JSON without benchwright's parser: the headline job's IOPS.
	job := b.Spec.Fio.Jobs[0].Name
	if got, want := b.Status.Results[0].Read.IOPS.Median, results.Compute(fioIOPS[job]).Median; got != want {
		t.Errorf("%s read IOPS median %v, fio's jobs[].read.iops give %v (%v)", job, got, want, fioIOPS[job])
	}

	// What each pod printed, read through the API server as kubectl does,
	// is what the manager stored.
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		key := p.Labels[benchv1.RepetitionLabel] + "/" + p.Name + ".log"
		if got := kc.Run(t, "logs", "-n", ns, p.Name, "-c", "fio"); got != string(raw[key]) {
			t.Errorf("kubectl logs %s: %d bytes; stored raw/%s: %d bytes", p.Name, len(got), key, len(raw[key]))
		}
		checkFactsMessage(t, &p)
	}
	if _, err := os.Stat(filepath.Join(storeDir(t, b.Status.ArtifactURI), "report.html")); err != nil {
		t.Errorf("the run's report: %v", err)
	}
	checkNodeFacts(t, b.Status.ArtifactURI)
	// The node's disk, as the sampler saw it, did what fio says it did.
	monitored := checkMonitor(t, b.Status.ArtifactURI, int(b.Spec.Repetitions), []string{job, b.Spec.Fio.Jobs[1].Name}, "/data/0")
	var diskIOPS []float64
	for _, s := range monitored {
		if s.Test == job && s.Metric == sampler.MetricDiskIOPS {
			diskIOPS = append(diskIOPS, s.Value)
		}
	}
	ratio := results.Compute(diskIOPS).Median / results.Compute(fioIOPS[job]).Median
	t.Logf("%s: the sampler's disk IOPS %v, fio's %v: ratio of medians %.3f", job, diskIOPS, fioIOPS[job], ratio)
	if ratio < 0.7 || ratio > 1.5 {
		t.Errorf("the sampler's disk IOPS are %.3fx fio's during %s: the sampler is not watching fio's disk", ratio, job)
	}

	out := kc.Run(t, "get", "storagebenchmarks", "-n", ns)
	t.Logf("kubectl get storagebenchmarks:\n%s", out)
	row := util.Table(t, out)[0]
	if row["STATE"] != "Succeeded" || row["PROGRESS"] != "3/3" || row["RESULT"] != b.Status.Headline || !strings.Contains(row["RESULT"], "IOPS") {
		t.Errorf("kubectl get: %v, want Succeeded, 3/3 and the headline %q", row, b.Status.Headline)
	}

	// A bare fio pod: the same job file, on the same node, in the same image.
	// fio read it from its pod's own annotation (a downward API volume).
	jobFile := jobFileOf(t, b)
	checkInputs(t, ns, b.Status.ArtifactURI, "job.fio", jobFile)
	bare := runBareFio(t, ns, b.Status.Nodes[0], jobFile)
	ratio = b.Status.Results[0].Read.IOPS.Median / bare.iops[job]
	t.Logf("%s: StorageBenchmark median %.0f IOPS, bare fio pod %.0f IOPS: ratio %.3f (pod ran %s)",
		job, b.Status.Results[0].Read.IOPS.Median, bare.iops[job], ratio, bare.ran.Round(100*time.Millisecond))
	if ratio < 0.5 || ratio > 2 {
		t.Errorf("the StorageBenchmark measured %.3fx the bare pod's IOPS: the same fio on the same node should agree", ratio)
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// readIOPS is fio's jobs[].read.iops per job name, read with encoding/json
// from the first '{' (fio may warn before its report).
func readIOPS(t *testing.T, data []byte) map[string]float64 {
	t.Helper()
	var report struct {
		Jobs []struct {
			Name string `json:"jobname"`
			Read struct {
				IOPS float64 `json:"iops"`
			} `json:"read"`
		} `json:"jobs"`
	}
	i := bytes.IndexByte(data, '{')
	if i < 0 {
		t.Fatalf("no JSON in fio's output: %.200s", data)
	}
	if err := json.NewDecoder(bytes.NewReader(data[i:])).Decode(&report); err != nil {
		t.Fatalf("fio's JSON: %v", err)
	}
	out := map[string]float64{}
	for _, j := range report.Jobs {
		out[j.Name] = j.Read.IOPS
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Seed 004's dd study on a real persistent volume (a local volume made here),
// with the page cache dropped before each repetition by the privileged step.
// The example writes 10 GB per test; here each test moves 64 MiB.
func TestDDOnRealVolumes(t *testing.T) {
	ns := newNamespace(t)
	b := &benchv1.StorageBenchmark{}
	util.LoadExample(t, "seeds/s4-dd-io-modes.yaml", b)
	b.Namespace = ns
	for i := range b.Spec.DD.Tests {
		b.Spec.DD.Tests[i].Count = 64
	}
	if !b.Spec.DropCaches {
		t.Fatal("the example no longer drops caches")
	}
	claim := children.Name(b.Name, "-data0")
	pv := localVolume(t, ns+"-data0", *b.Spec.Volumes.StorageClassName, nodes()[0], ns, claim)
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 5*time.Minute)

	raw := rawLogs(t, b.Status.ArtifactURI)
	var samples []results.Sample
	for name, data := range raw {
		for _, sec := range containerSections(data) {
			test := ddTest(b, sec.container)
			if test == nil {
				continue // dd-prepare and drop-caches measure nothing
			}
			parsed, err := fio.DDTestSamples(*test, sec.log)
			if err != nil || len(parsed) == 0 {
				t.Fatalf("%s, container %s: dd's output does not parse (%v):\n%s", name, sec.container, err, sec.log)
			}
			samples = append(samples, parsed...)
		}
	}
	checkFiguresEqual(t, b, summarize(samples))

	// Each repetition's pod dropped the page cache, privileged, and went on.
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != int(b.Spec.Repetitions) {
		t.Errorf("%d pods, want one per repetition (%d)", len(pods.Items), b.Spec.Repetitions)
	}
	for _, p := range pods.Items {
		dropped := false
		for _, c := range p.Status.InitContainerStatuses {
			if c.Name == "drop-caches" && c.State.Terminated != nil && c.State.Terminated.ExitCode == 0 {
				dropped = true
			}
		}
		if !dropped {
			t.Errorf("pod %s: no drop-caches step that exited 0: %+v", p.Name, p.Status.InitContainerStatuses)
		}
	}
	var got corev1.PersistentVolumeClaim
	if err := k8s.Get(ctx(), client.ObjectKey{Namespace: ns, Name: claim}, &got); err != nil || got.Spec.VolumeName != pv.Name {
		t.Errorf("claim %s: bound to %q (%v), want the local volume %s", claim, got.Spec.VolumeName, err, pv.Name)
	}
	out := kc.Run(t, "get", "storagebenchmarks", "-n", ns)
	t.Logf("kubectl get storagebenchmarks:\n%s", out)
	if row := util.Table(t, out)[0]; row["STATE"] != "Succeeded" || row["VOLUMES"] != "1x100Gi premium-rwo" || !strings.HasSuffix(row["RESULT"], "write-buffered-1") {
		t.Errorf("kubectl get: %v", row)
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// section is one container's part of a stored raw log.
type section struct {
	container string
	log       []byte
}

// containerSections splits a raw log at the manager's
// "==> container NAME: ARGV <==" lines.
func containerSections(data []byte) []section {
	var out []section
	for _, part := range bytes.Split(data, []byte("==> container "))[1:] {
		head, body, _ := bytes.Cut(part, []byte("\n"))
		name, _, _ := strings.Cut(string(head), ":")
		out = append(out, section{container: name, log: body})
	}
	return out
}

func ddTest(b *benchv1.StorageBenchmark, container string) *benchv1.DDTest {
	for i := range b.Spec.DD.Tests {
		if b.Spec.DD.Tests[i].Name == container {
			return &b.Spec.DD.Tests[i]
		}
	}
	return nil
}

// localVolume is a local PersistentVolume on node, in a directory of this
// host under REAL_VOLUMES, reserved for the claim ns/claim; deleted with the test.
func localVolume(t *testing.T, name, class, node, ns, claim string) *corev1.PersistentVolume {
	t.Helper()
	ensureStorageClass(t, class)
	dir := filepath.Join(env["REAL_VOLUMES"], name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: dir}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: ns, Name: claim},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
	}
	if err := k8s.Create(ctx(), pv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx(), pv)
		_ = os.RemoveAll(dir)
	})
	return pv
}

// ensureStorageClass makes class, a class of static local volumes, unless it exists.
func ensureStorageClass(t *testing.T, class string) {
	t.Helper()
	manifest := "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: " + class + "}\n" +
		"provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n"
	f := filepath.Join(t.TempDir(), "class.yaml")
	if err := os.WriteFile(f, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	kc.Run(t, "apply", "-f", f)
}

// A tool that fails for real: fio told to write in a directory it may not
// write to (root without capabilities, a root-owned directory of mode 0555).
// The benchmark fails with fio's own words.
func TestFioFailsForReal(t *testing.T) {
	ns := newNamespace(t)
	dir := filepath.Join(env["REAL_VOLUMES"], ns+"-read-only")
	if err := os.MkdirAll(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	b := storageBenchmark(t, ns, "unwritable", `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
volumes:
  hostPath: {paths: [`+dir+`]}
fio:
  size: 16M
  runtime: 2s
  jobs:
  - {name: write-4k, rw: randwrite, blockSize: 4k}
`)
	c := waitFinished(t, b, &b.Status.BenchmarkStatusCommon, 3*time.Minute)
	if c.Type != benchv1.ConditionFailed || c.Reason != benchv1.ReasonToolFailed {
		t.Fatalf("%s: %s/%s, want Failed/%s", b.Name, c.Type, c.Reason, benchv1.ReasonToolFailed)
	}
	if !strings.Contains(c.Message, "fio") || !strings.Contains(c.Message, "Permission denied") {
		t.Errorf("Failed's message does not quote fio's error:\n%s", c.Message)
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// An image that does not exist: the kubelet cannot pull it (no registry is
// reachable from the nodes), and the benchmark fails once timeouts.start has
// passed, naming the image, instead of waiting for ever.
func TestMissingImageFails(t *testing.T) {
	ns := newNamespace(t)
	const image = "ghcr.io/benchwright/no-such-image:v0"
	b := storageBenchmark(t, ns, "no-image", `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 1
image: `+image+`
timeouts: {start: 40s}
volumes: {emptyDir: {}}
fio:
  size: 16M
  runtime: 2s
  jobs:
  - {name: read-4k, rw: randread, blockSize: 4k}
`)
	began := time.Now()
	c := waitFinished(t, b, &b.Status.BenchmarkStatusCommon, 2*time.Minute)
	if c.Type != benchv1.ConditionFailed || c.Reason != benchv1.ReasonTimeout || !strings.Contains(c.Message, image) {
		t.Errorf("%s: %s/%s %q, want Failed/%s naming %s", b.Name, c.Type, c.Reason, c.Message, benchv1.ReasonTimeout, image)
	}
	if took := time.Since(began); took > 40*time.Second+45*time.Second {
		t.Errorf("failed after %s: timeouts.start is 40s", took.Round(time.Second))
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// storageBenchmark creates a StorageBenchmark from the YAML of its spec.
func storageBenchmark(t *testing.T, ns, name, spec string) *benchv1.StorageBenchmark {
	t.Helper()
	b := &benchv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := yaml.UnmarshalStrict([]byte(spec), &b.Spec); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	return b
}

// checkFactsMessage: the kubelet made the node-facts step's line, written
// by the non-root step on its read-only root, the container's termination
// message (which the manager reads instead of the log): the line it logged.
func checkFactsMessage(t *testing.T, p *corev1.Pod) {
	t.Helper()
	for _, s := range p.Status.InitContainerStatuses {
		if s.Name != children.NodeFactsContainer {
			continue
		}
		if s.State.Terminated == nil {
			t.Fatalf("pod %s: the node-facts step has not terminated: %+v", p.Name, s.State)
		}
		message := s.State.Terminated.Message
		if logged := kc.Run(t, "logs", "-n", p.Namespace, p.Name, "-c", children.NodeFactsContainer); message != logged {
			t.Errorf("pod %s: the node-facts step's termination message %q, want the line it logged %q", p.Name, message, logged)
		}
		if f, err := nodefacts.ParseLine([]byte(message)); err != nil || f.Network != "pod" || f.MTU <= 0 {
			t.Errorf("pod %s: the termination message's facts %+v (%v)", p.Name, f, err)
		}
		return
	}
	t.Errorf("pod %s has no node-facts step status: %+v", p.Name, p.Status.InitContainerStatuses)
}

// podLogGETs is the API server's count of pods/log requests so far
// (apiserver_request_total).
func podLogGETs(t *testing.T) float64 {
	t.Helper()
	data, err := clientset.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx())
	if err != nil {
		t.Fatalf("the API server's metrics: %v", err)
	}
	var n float64
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="pods"`) || !strings.Contains(line, `subresource="log"`) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		n += v
	}
	return n
}

// checkNodeFacts: the pods' unprivileged node-facts step (the manager image's
// /benchwright nodefacts) ran on the real node: nodes.json has the node's
// facts, the pod's eth0 MTU among them, and the stored samples its cpu_mhz.
func checkNodeFacts(t *testing.T, uri string) {
	t.Helper()
	dir := storeDir(t, uri)
	data, err := os.ReadFile(filepath.Join(dir, results.NodesFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nodes.json:\n%s", data)
	var nodes []results.NodeInfo
	if err := json.Unmarshal(data, &nodes); err != nil || len(nodes) == 0 {
		t.Fatalf("nodes.json: %v", err)
	}
	for _, n := range nodes {
		f := n.Facts
		if f == nil || f.CPUMHz <= 0 || f.MTU <= 0 || f.MTUInterface != "eth0" || f.Network != "pod" || f.SELinux == "" || f.CPUs == "" {
			t.Errorf("node %s: facts %+v, want the frequency, the pod's eth0 MTU, SELinux and the CPUs read", n.Hostname, f)
		}
		if n.FirewallRules != results.FirewallUnknown {
			t.Errorf("node %s: firewall_rules %q without a TuningProfile, want unknown", n.Hostname, n.FirewallRules)
		}
	}
	stored, err := os.ReadFile(filepath.Join(dir, results.SamplesNDJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := results.ReadNDJSON(bytes.NewReader(stored))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if s.Labels[results.LabelCPUMHz] == "" {
			t.Fatalf("stored sample without cpu_mhz: %+v", s.Labels)
		}
	}
}
