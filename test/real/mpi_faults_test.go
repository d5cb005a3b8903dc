//go:build real

package real

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// An image whose MPI is not the spec's (OpenMPI's image for an MPICH run):
// the launcher's benchwright steps asks mpirun which MPI it is, runs no step,
// and the benchmark fails MPIMismatch naming both, at once.
func TestImageOfAnotherMPIFails(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	ns := newNamespace(t)
	b := mpiBenchmark(t, ns, "wrong-mpi", `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_latency]
layout: {nodes: 1, ranksPerNode: 2, cpuBinding: {policy: none}}
mpi: {implementation: MPICH, image: `+env["IMAGE_MPI_OPENMPI"]+`}
messageSizes: {min: 1, max: 8}
repetitions: 1
`)
	began := time.Now()
	c := waitFinished(t, b, &b.Status.BenchmarkStatusCommon, 3*time.Minute)
	t.Logf("%s after %s: %s: %s", c.Type, time.Since(began).Round(100*time.Millisecond), c.Reason, c.Message)
	if c.Type != benchv1.ConditionFailed || c.Reason != benchv1.ReasonMPIMismatch ||
		!strings.Contains(c.Message, "is OpenMPI (Open MPI 4.1.4), but the MPIBenchmark's mpi.implementation is MPICH") {
		t.Errorf("%s/%s %q, want Failed/%s naming both MPIs", c.Type, c.Reason, c.Message, benchv1.ReasonMPIMismatch)
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// A worker killed in the middle of a repetition (its pod deleted while the
// launcher's mpirun runs off-node): the repetition is retried per maxRetries
// (here 1): the retry runs on a fresh MPIJob and the benchmark succeeds.
func TestWorkerKilledMidRun(t *testing.T) {
	needImage(t, "IMAGE_MPI_OPENMPI")
	ns := newNamespace(t)
	b := mpiBenchmark(t, ns, "killed", `
nodeSelector: {kubernetes.io/os: linux}
suite: osu
tests: [osu_latency]
layout: {nodes: 2, ranksPerNode: 1, cpuBinding: {policy: none}}
mpi: {implementation: OpenMPI}
messageSizes: {min: 1, max: 8}
iterations: 200000
repetitions: 1
maxRetries: 1
`)
	// Once the step runs (its header is in the launcher's log), delete a worker.
	var victim string
	util.WaitFor(t, 3*time.Minute, "the first step running", func() (bool, string) {
		var pods corev1.PodList
		if err := k8s.List(ctx(), &pods, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var launcher *corev1.Pod
		for i, p := range pods.Items {
			switch p.Labels["training.kubeflow.org/job-role"] {
			case "launcher":
				launcher = &pods.Items[i]
			case "worker":
				victim = p.Name
			}
		}
		if launcher == nil || launcher.Status.Phase != corev1.PodRunning {
			return false, "no running launcher"
		}
		log := kc.Try("logs", "-n", ns, launcher.Name)
		return strings.Contains(log, "==> benchwright step 1/1:"), "the step has not started: " + log
	})
	time.Sleep(2 * time.Second)
	t.Logf("deleting worker %s mid-run", victim)
	if err := k8s.Delete(ctx(), wrappers.MakePod(victim, ns).Obj()); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	c := waitFinished(t, b, &b.Status.BenchmarkStatusCommon, 6*time.Minute)
	t.Logf("%s %s after the kill: %s: %s", c.Type, time.Since(began).Round(100*time.Millisecond), c.Reason, c.Message)
	t.Logf("events:\n%s", kc.Try("get", "events", "-n", ns, "--field-selector", "involvedObject.kind=MPIBenchmark"))
	events := kc.Try("get", "events", "-n", ns, "--field-selector", "involvedObject.kind=MPIBenchmark,reason="+benchv1.ReasonEvicted, "-o", "jsonpath={.items[*].message}")
	if c.Type != benchv1.ConditionSucceeded || !strings.Contains(events, "Repetition 1/1 lost (MPIJob killed-r0 failed after worker pod "+victim) ||
		!strings.Contains(events, "retrying (1 of 1)") {
		t.Errorf("%s/%s %q, events %q; want the repetition retried once and Succeeded", c.Type, c.Reason, c.Message, events)
	}
	util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
}

// mpiBenchmark creates an MPIBenchmark from the YAML of its spec.
func mpiBenchmark(t *testing.T, ns, name, spec string) *benchv1.MPIBenchmark {
	t.Helper()
	b := &benchv1.MPIBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := yaml.UnmarshalStrict([]byte(spec), &b.Spec); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx(), b); err != nil {
		t.Fatal(err)
	}
	return b
}
