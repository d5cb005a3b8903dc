package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/mpi"
)

// noConfigMaps fails when ns holds a ConfigMap besides the API server's own.
func noConfigMaps(t *testing.T, ns string) {
	t.Helper()
	var cms corev1.ConfigMapList
	if err := k8sClient.List(context.Background(), &cms, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if cm.Name != "kube-root-ca.crt" {
			t.Errorf("ConfigMap %s created (labels %v)", cm.Name, cm.Labels)
		}
	}
}

// storedInput is a run's stored input file (job.fio, steps.json).
func storedInput(t *testing.T, store *artifacts.Store, b client.Object, kind, file string) string {
	t.Helper()
	prefix, err := artifacts.Location{Namespace: b.GetNamespace(), Kind: kind, Name: b.GetName(), UID: string(b.GetUID())}.Prefix()
	if err != nil {
		t.Fatal(err)
	}
	data, err := store.Get(context.Background(), prefix+file)
	if err != nil {
		t.Fatalf("%s of the run: %v", file, err)
	}
	return string(data)
}

// A StorageBenchmark's fio reads its job file from its pod's annotation
// (which the fake kubelet writes where the downward API volume puts it): no
// ConfigMap is made, and the run's files keep the job file.
func TestStorageBenchmarkCreatesNoConfigMap(t *testing.T) {
	requireTool(t, "fio")
	createNode(t, "node-a", "n2-standard-4")
	env := newStorageEnv(t, nil)
	b := waitFinished(t, env.createBenchmark(t, "fio-in", smallFio), 90*time.Second)
	if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	noConfigMaps(t, env.ns)
	var jobs batchv1.JobList
	if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(env.ns)); err != nil || len(jobs.Items) != 2 {
		t.Fatalf("%d Jobs (%v), want 2", len(jobs.Items), err)
	}
	jobFile := jobs.Items[0].Spec.Template.Annotations[benchv1.FioJobFileAnnotation]
	if !strings.Contains(jobFile, "[randread-4k-qd4]") || !strings.Contains(jobFile, "[write-1m]") {
		t.Errorf("the Job's annotation %s:\n%s", benchv1.FioJobFileAnnotation, jobFile)
	}
	if stored := storedInput(t, env.store, b, "StorageBenchmark", "job.fio"); stored != jobFile {
		t.Errorf("job.fio of the run:\n%s\nwant the Job's annotation:\n%s", stored, jobFile)
	}
}

// A job file over the bound fails the benchmark InvalidSpec, saying what
// to shrink, before any claim or Job is made.
func TestStorageBenchmarkJobFileTooLarge(t *testing.T) {
	env := newStorageEnv(t, nil)
	var spec strings.Builder
	spec.WriteString("nodeSelector: {kubernetes.io/os: linux}\nvolumes: {count: 64, size: 1Gi}\nfio:\n  jobs:\n")
	for i := range 64 {
		name := fmt.Sprintf("j%d-", i)
		fmt.Fprintf(&spec, "  - {name: %s%s, rw: randread}\n", name, strings.Repeat("x", 63-len(name)))
	}
	b := waitFinished(t, env.createBenchmark(t, "huge", spec.String()), 30*time.Second)
	wantFailed(t, b, benchv1.ReasonInvalidSpec, "the fio job file is", "over the 128 KiB", "spec.fio.jobs", "spec.volumes.count")
	for _, l := range []client.ObjectList{&batchv1.JobList{}, &corev1.PersistentVolumeClaimList{}} {
		if err := k8sClient.List(context.Background(), l, client.InNamespace(env.ns)); err != nil {
			t.Fatal(err)
		}
		if n := meta.LenList(l); n != 0 {
			t.Errorf("%T: %d created", l, n)
		}
	}
	noConfigMaps(t, env.ns)
}

// An MPIBenchmark's launcher reads its steps from its own annotation, which
// the MPI Operator copies from the launcher's template: no ConfigMap is
// made, and the run's files keep the steps.
func TestMPIBenchmarkCreatesNoConfigMap(t *testing.T) {
	b, env := runOSUOffNode(t, "osu-in")
	noConfigMaps(t, env.ns)
	var pods corev1.PodList
	if err := k8sClient.List(context.Background(), &pods, client.InNamespace(env.ns), client.MatchingLabels{"benchwright.io/role": "launcher"}); err != nil || len(pods.Items) == 0 {
		t.Fatalf("no launcher pods (%v)", err)
	}
	steps := pods.Items[0].Annotations[benchv1.MPIStepsAnnotation]
	var l mpi.Launch
	if err := json.Unmarshal([]byte(steps), &l); err != nil || len(l.Steps) != 2 || l.Steps[1].Program != "osu_bw" {
		t.Errorf("the launcher's annotation %s (%v):\n%s", benchv1.MPIStepsAnnotation, err, steps)
	}
	if stored := storedInput(t, env.store, b, "MPIBenchmark", "steps.json"); stored != steps {
		t.Errorf("steps.json of the run:\n%s\nwant the launcher's annotation:\n%s", stored, steps)
	}
}

// A benchmark the old manager started has a ConfigMap of its job file: the
// new manager's attempts use the annotation and leave the ConfigMap to be
// collected with its owner.
func TestStorageBenchmarkWithTheOldManagersConfigMap(t *testing.T) {
	requireTool(t, "fio")
	createNode(t, "node-a", "n2-standard-4")
	env := newStorageEnv(t, nil)
	b := env.createBenchmark(t, "old", smallFio)
	old := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "old-fio", Namespace: env.ns, Labels: map[string]string{benchv1.BenchmarkLabel: "old", benchv1.KindLabel: "StorageBenchmark"}},
		Data:       map[string]string{"job.fio": "[stale]\n"},
	}
	if err := controllerutil.SetControllerReference(b, old, k8sClient.Scheme()); err != nil {
		t.Fatal(err)
	}
	if err := k8sClient.Create(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	b = waitFinished(t, b, 90*time.Second)
	if c := meta.FindStatusCondition(b.Status.Conditions, benchv1.ConditionSucceeded); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Succeeded: %+v", b.Status.Conditions)
	}
	got := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(old), got); err != nil || got.Data["job.fio"] != "[stale]\n" {
		t.Errorf("the old ConfigMap: %v %v", err, got.Data)
	}
	if ref := metav1.GetControllerOf(got); ref == nil || ref.UID != b.UID {
		t.Errorf("the old ConfigMap is no longer the benchmark's: %v", got.OwnerReferences)
	}
	if len(b.Status.Results) != 2 {
		t.Errorf("results %+v, want the two jobs of the annotation's job file", b.Status.Results)
	}
}
