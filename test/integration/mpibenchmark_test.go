package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/mpibenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// launcherLog is what `benchwright steps` prints for the spec's steps when
// each printed the given output and exited with the given code.
func launcherLog(t *testing.T, spec *benchv1.MPIBenchmarkSpec, outputs [][]byte, codes []int) []byte {
	t.Helper()
	l, err := mpi.BuildLaunch(spec, mpi.Options{IORDir: "/data"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := range outputs {
		b.WriteString(mpi.StepHeader(i+1, len(l.Steps), l.Steps[i].Argv))
		b.Write(outputs[i])
		if codes[i] >= 0 {
			b.WriteString(mpi.StepTrailer(i+1, len(l.Steps), codes[i], 2*time.Second))
		}
	}
	return b.Bytes()
}

type mpiEnv struct {
	ns       string
	operator *fakeMPIOperator
	store    *artifacts.Store
}

func newMPIEnv(t *testing.T, script func(*mpiv2.MPIJob) mpiFate) *mpiEnv {
	t.Helper()
	benchwrightCLI(t) // built before any clock runs: the workers' node-facts step runs it
	ns := testNamespace(t, "mb-")
	env := &mpiEnv{ns: ns, operator: newFakeMPIOperator(t, ns, script)}
	env.store = startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		e := benchrun.NewEnv(mgr, "mpibenchmark-controller", env.operator, store)
		e.NodeFactsImage = managerImage
		return (&mpibenchmark.Reconciler{
			Env:    e,
			Images: map[benchv1.MPIImplementation]string{benchv1.OpenMPI: "registry.example/mpi-openmpi:test", benchv1.IntelMPI: "registry.example/mpi-intel:test"},
		}).SetupWithManager(mgr)
	}, env.operator.run)
	return env
}

func (e *mpiEnv) create(t *testing.T, name, spec string) *benchv1.MPIBenchmark {
	t.Helper()
	b := &benchv1.MPIBenchmark{}
	if err := yaml.UnmarshalStrict([]byte(spec), &b.Spec); err != nil {
		t.Fatal(err)
	}
	b.Name, b.Namespace = name, e.ns
	if err := k8sClient.Create(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	// The defaults the API server applied.
	if err := k8sClient.Get(context.Background(), clientKey(b), b); err != nil {
		t.Fatal(err)
	}
	return b
}

const osuOffNode = `
pool: c2-compact
suite: osu
tests: [osu_latency, osu_bw]
layout: {nodes: 2, ranksPerNode: 1}
mpi: {implementation: OpenMPI}
messageSizes: {min: 0, max: 4194304}
repetitions: 2
`

// runOSUOffNode runs osuOffNode as name on two nodes of a compact pool, the
// launcher printing real OSU output, and returns it Succeeded, with its
// environment.
func runOSUOffNode(t *testing.T, name string) (*benchv1.MPIBenchmark, *mpiEnv) {
	t.Helper()
	return runOSUOffNodeWith(t, name, nil)
}

// runOSUOffNodeWith is runOSUOffNode with more to each MPIJob's fate: more
// gets the spec and the fate with the launcher's log.
func runOSUOffNodeWith(t *testing.T, name string, more func(*benchv1.MPIBenchmarkSpec, *mpiFate)) (*benchv1.MPIBenchmark, *mpiEnv) {
	t.Helper()
	lat, bw := fixtures.Read(t, "osu/osu_latency_v5.8_gke_flux.txt"), fixtures.Read(t, "osu/osu_bw_v5.8_azure_aks.txt")
	createNode(t, "node-a", "c2-standard-8")
	createNode(t, "node-b", "c2-standard-8")
	createPool(t, "c2-compact", true)
	var spec benchv1.MPIBenchmarkSpec
	env := newMPIEnv(t, func(*mpiv2.MPIJob) mpiFate {
		f := mpiFate{log: launcherLog(t, &spec, [][]byte{lat, bw}, []int{0, 0})}
		if more != nil {
			more(&spec, &f)
		}
		return f
	})
	b := env.create(t, name, osuOffNode)
	spec = b.Spec
	b = waitFinished(t, b, 60*time.Second)
	if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	return b, env
}

func TestMPIBenchmarkRunsOSU(t *testing.T) {
	b, env := runOSUOffNode(t, "osu")
	st := b.Status
	if st.Progress != "2/2" || st.Layout != "2x1 core" || st.MachineType != "c2-standard-8" || len(st.Nodes) != 2 {
		t.Errorf("progress %q layout %q machine %q nodes %v", st.Progress, st.Layout, st.MachineType, st.Nodes)
	}
	// The figures are the fixture's own: 8 bytes took 31.82 us; osu_bw
	// peaked at 24,465.19 MB/s with 512 KiB messages.
	if s := st.Summary; s.LatencyMicroseconds == nil || *s.LatencyMicroseconds != 31.82 || *s.LatencyMessageSize != 8 ||
		s.PeakBandwidthMBps == nil || *s.PeakBandwidthMBps != 24465.19 || *s.PeakBandwidthMessageSize != 524288 {
		t.Errorf("summary %+v", s)
	}
	if len(st.Results) != 2 || st.Results[0].Test != "osu_latency" || st.Results[0].Metric != "latency" || st.Results[0].Unit != "us" ||
		len(st.Results[0].Points) != 24 || st.Results[0].Points[0].N != 2 || st.Results[1].Metric != "bandwidth" {
		t.Errorf("results %+v", st.Results)
	}
	get := kubectl(t, "get", "mpibench", "-n", env.ns)
	t.Logf("kubectl get mpibench:\n%s", get)
	if !strings.Contains(get, "31.82") || !strings.Contains(get, "24465.19") || !strings.Contains(get, "Succeeded") {
		t.Errorf("kubectl get mpibench:\n%s", get)
	}
	checkMPIJob(t, b)
	prefix, _ := artifacts.Location{Namespace: b.Namespace, Kind: "MPIBenchmark", Name: b.Name, UID: string(b.UID)}.Prefix()
	keys, err := env.store.List(context.Background(), prefix)
	series := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !strings.Contains(k, "/monitor/") })
	// 2 raw logs, samples x2, summary, nodes, report, steps, outcome; and
	// the series of the 2 workers in each of the 2 repetitions (the fake
	// MPI Operator runs the workers' samplers, not the launcher's).
	if err != nil || len(keys)-len(series) != 9 || len(series) != 4 {
		t.Errorf("stored %v (%v)", keys, err)
	}
	// The workers' node-facts steps ran; their facts, kept on the MPIJob,
	// are in nodes.json, one entry per worker node.
	data, err := env.store.Get(context.Background(), prefix+"nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	var nodes []results.NodeInfo
	if err := json.Unmarshal(data, &nodes); err != nil || len(nodes) != 2 {
		t.Fatalf("nodes.json: %v\n%s", err, data)
	}
	for _, n := range nodes {
		if f := n.Facts; f == nil || f.CPUMHz <= 0 || f.Network != "pod" || n.FirewallRules != results.FirewallUnknown {
			t.Errorf("nodes.json lacks %s's facts:\n%s", n.Hostname, data)
		}
		// The machine beneath the node (here, this one: the kernel's boot
		// id), and each repetition's window: the launcher's run.
		if f := n.Facts; f == nil || f.BootID == "" || f.Machine() != nodes[0].Facts.Machine() {
			t.Errorf("nodes.json lacks %s's machine, or the two workers' differ:\n%s", n.Hostname, data)
		}
		if len(n.Windows) != 2 || n.Windows[1].Repetition != 1 || !n.Windows[0].End.After(n.Windows[0].Start) {
			t.Errorf("nodes.json lacks %s's two repetition windows: %+v", n.Hostname, n.Windows)
		}
	}
}

// A pod with the launcher's labels that is not the launcher of the
// benchmark's MPIJob (launcher pod -> Job <mpijob>-launcher -> MPIJob) never
// speaks for it, however Succeeded (issue 29 item 9): someone who may only
// create pods in the namespace supplies several beside the real launcher,
// without an owner, controlled by the MPIJob directly, and controlled by a
// Job of the launcher Job's name but not its UID. Their log claims 0.01 us.
func TestMPIBenchmarkReadsOnlyItsOwnLauncher(t *testing.T) {
	b, env := runOSUOffNodeWith(t, "osu-rogue", func(spec *benchv1.MPIBenchmarkSpec, f *mpiFate) {
		lat := bytes.ReplaceAll(fixtures.Read(t, "osu/osu_latency_v5.8_gke_flux.txt"), []byte("31.82"), []byte("0.01"))
		bw := fixtures.Read(t, "osu/osu_bw_v5.8_azure_aks.txt")
		f.rogues, f.rogueLog = 9, launcherLog(t, spec, [][]byte{lat, bw}, []int{0, 0})
	})
	if s := b.Status.Summary; s.LatencyMicroseconds == nil || *s.LatencyMicroseconds != 31.82 {
		t.Errorf("summary %s, want the launcher's latency 31.82 us (a rogue pod's log says 0.01)", summaryJSON(s))
	}
	prefix, _ := artifacts.Location{Namespace: b.Namespace, Kind: "MPIBenchmark", Name: b.Name, UID: string(b.UID)}.Prefix()
	keys, err := env.store.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	raw := 0
	for _, k := range keys {
		if strings.Contains(k, "-launcher-rogue-") {
			t.Errorf("stored a rogue pod's log: %s", k)
		}
		if strings.Contains(k, "-launcher-x7k2p") {
			raw++
		}
	}
	if raw != int(b.Spec.Repetitions) {
		t.Errorf("stored %v: want the launcher's raw log of each repetition", keys)
	}
}

// checkMPIJob checks the MPIJob's shape: what the MPI Operator needs.
func checkMPIJob(t *testing.T, b *benchv1.MPIBenchmark) {
	t.Helper()
	var jobs mpiv2.MPIJobList
	if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(b.Namespace)); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != int(b.Spec.Repetitions) {
		t.Fatalf("%d MPIJobs, want one per repetition", len(jobs.Items))
	}
	j := jobs.Items[0]
	s := j.Spec
	if s.LauncherCreationPolicy != mpiv2.LauncherCreationPolicyWaitForWorkersReady || *s.RunPolicy.BackoffLimit != 0 ||
		*s.RunPolicy.CleanPodPolicy != mpiv2.CleanPodPolicyRunning || *s.SlotsPerWorker != 1 || s.MPIImplementation != mpiv2.MPIImplementationOpenMPI {
		t.Errorf("MPIJob spec %+v", s)
	}
	w := s.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker]
	pod := w.Template.Spec
	if *w.Replicas != 2 || pod.NodeSelector[benchv1.PoolLabel] != "c2-compact" || pod.Tolerations[0].Key != benchv1.PoolLabel ||
		pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != corev1.LabelHostname ||
		*pod.AutomountServiceAccountToken || pod.Containers[0].Image != "registry.example/mpi-openmpi:test" {
		t.Errorf("worker template %+v", w)
	}
	l := s.MPIReplicaSpecs[mpiv2.MPIReplicaTypeLauncher].Template.Spec
	if strings.Join(l.Containers[0].Command, " ") != "benchwright steps /etc/benchwright/steps.json" || l.Volumes[0].DownwardAPI == nil {
		t.Errorf("launcher template %+v", l)
	}
	if ref := metav1.GetControllerOf(&j); ref == nil || ref.UID != b.UID {
		t.Errorf("MPIJob not controlled by the benchmark: %+v", j.OwnerReferences)
	}
}

func TestMPIBenchmarkRunsIMBWithIntelMPI(t *testing.T) {
	out := fixtures.Read(t, "imb/imb_2021.2_pingpong_intelmpi_oci.txt")
	var spec benchv1.MPIBenchmarkSpec
	env := newMPIEnv(t, func(*mpiv2.MPIJob) mpiFate {
		return mpiFate{log: launcherLog(t, &spec, [][]byte{out}, []int{0})}
	})
	b := env.create(t, "imb", `
nodeSelector: {cloud.google.com/gke-nodepool: c3}
suite: imb
tests: [PingPong]
layout: {nodes: 2}
mpi: {implementation: Intel, env: [{name: I_MPI_FABRICS, value: ofi}]}
`)
	spec = b.Spec
	b = waitFinished(t, b, 60*time.Second)
	if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	var metrics []string
	for _, r := range b.Status.Results {
		metrics = append(metrics, r.Test+"/"+r.Metric+"/"+r.Unit)
	}
	if strings.Join(metrics, " ") != "PingPong/latency/us PingPong/bandwidth/MB/s" || b.Status.Summary.LatencyMicroseconds == nil {
		t.Errorf("results %v, summary %+v", metrics, b.Status.Summary)
	}
}

func TestMPIBenchmarkFailures(t *testing.T) {
	lat := fixtures.Read(t, "osu/osu_latency_v5.8_gke_flux.txt")
	base := `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_latency, osu_bw]
layout: {nodes: 2, ranksPerNode: 1}
mpi: {implementation: OpenMPI}
maxRetries: 1
timeouts: {start: 3s}
`
	for _, tc := range []struct {
		name   string
		fate   func(spec *benchv1.MPIBenchmarkSpec) mpiFate
		reason string
		quotes []string
	}{
		{"the MPI run fails", func(spec *benchv1.MPIBenchmarkSpec) mpiFate {
			died := []byte("--------------------------------------------------------------------------\nmpirun noticed that process rank 1 with PID 0 on node osu-r0-worker-1 exited on signal 9 (Killed).\n")
			return mpiFate{failReason: "BackoffLimitExceeded/", failMessage: "Job has reached the specified backoff limit",
				log: launcherLog(t, spec, [][]byte{lat, died}, []int{0, 137})}
		}, benchv1.ReasonToolFailed, []string{"step 2 (mpirun", "osu_bw", "exited with code 137", "mpirun noticed that process rank 1"}},
		{"the launcher's output is cut", func(spec *benchv1.MPIBenchmarkSpec) mpiFate {
			return mpiFate{log: launcherLog(t, spec, [][]byte{lat[:len(lat)/2]}, []int{-1})}
		}, benchv1.ReasonUnparsableOutput, []string{"ends inside step 1", "cut short"}},
		{"workers are evicted every time", func(*benchv1.MPIBenchmarkSpec) mpiFate {
			return mpiFate{failReason: "MPIJobEvicted", failMessage: "1/2 workers are evicted"}
		}, benchv1.ReasonRetriesExhausted, []string{"lost 2 time(s), spec.maxRetries is 1", "MPIJobEvicted", "1/2 workers are evicted"}},
		{"workers are never ready", func(*benchv1.MPIBenchmarkSpec) mpiFate {
			return mpiFate{pending: "0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules."}
		}, benchv1.ReasonTimeout, []string{"workers were not ready within 3s (spec.timeouts.start)", "0 of 2 workers running", "didn't match pod anti-affinity rules"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec benchv1.MPIBenchmarkSpec
			env := newMPIEnv(t, func(*mpiv2.MPIJob) mpiFate { return tc.fate(&spec) })
			b := env.create(t, "osu", base)
			spec = b.Spec
			b = waitFinished(t, b, 30*time.Second)
			c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionFailed)
			if c == nil || c.Status != metav1.ConditionTrue || c.Reason != tc.reason {
				t.Fatalf("Failed condition %+v, want reason %s", c, tc.reason)
			}
			for _, q := range tc.quotes {
				if !strings.Contains(c.Message, q) {
					t.Errorf("message lacks %q:\n%s", q, c.Message)
				}
			}
			if len(b.Status.Results) != 0 || b.Status.State != benchv1.StateFailed {
				t.Errorf("results %+v state %s", b.Status.Results, b.Status.State)
			}
			t.Logf("Failed/%s: %s", c.Reason, c.Message)
		})
	}
}

// summaryJSON is a summary as JSON, its pointers followed.
func summaryJSON(s benchv1.MPISummary) string {
	data, _ := json.Marshal(s)
	return string(data)
}
