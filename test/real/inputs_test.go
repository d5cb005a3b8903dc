//go:build real

package real

import (
	"os"
	"path/filepath"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
)

// jobFileOf is the fio job file a StorageBenchmark's Jobs carry in their pod
// template's annotation: one for all of them.
func jobFileOf(tb testing.TB, b *benchv1.StorageBenchmark) string {
	tb.Helper()
	var jobs batchv1.JobList
	if err := k8s.List(ctx(), &jobs, client.InNamespace(b.Namespace), client.MatchingLabels{benchv1.BenchmarkLabel: children.LabelValue(b.Name)}); err != nil {
		tb.Fatal(err)
	}
	if len(jobs.Items) == 0 {
		tb.Fatalf("%s has no Jobs", b.Name)
	}
	jobFile := jobs.Items[0].Spec.Template.Annotations[benchv1.FioJobFileAnnotation]
	for _, j := range jobs.Items {
		if got := j.Spec.Template.Annotations[benchv1.FioJobFileAnnotation]; got == "" || got != jobFile {
			tb.Fatalf("Job %s carries the job file %q, Job %s %q", j.Name, got, jobs.Items[0].Name, jobFile)
		}
	}
	return jobFile
}

// checkInputs: the benchmark's pods read their input from their own
// annotation, the run's files keep it (file: job.fio, steps.json), and the
// namespace holds no ConfigMap of the benchmark's.
func checkInputs(t *testing.T, ns, uri, file, input string) {
	t.Helper()
	stored, err := os.ReadFile(filepath.Join(storeDir(t, uri), file))
	if err != nil || string(stored) != input {
		t.Errorf("the run's %s (%v):\n%s\nwant the pods' annotation:\n%s", file, err, stored, input)
	}
	var cms corev1.ConfigMapList
	if err := k8s.List(ctx(), &cms, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if cm.Labels[benchv1.KindLabel] != "" {
			t.Errorf("ConfigMap %s made for a benchmark", cm.Name)
		}
	}
}

// launcherSteps are the steps the MPI Operator's launcher pods of b carry
// in their annotation, copied from the MPIJob's launcher template: one for
// all of them.
func launcherSteps(t *testing.T, b *benchv1.MPIBenchmark) string {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(ctx(), &pods, client.InNamespace(b.Namespace), client.MatchingLabels{
		benchv1.BenchmarkLabel: children.LabelValue(b.Name), "benchwright.io/role": "launcher"}); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatalf("%s has no launcher pods", b.Name)
	}
	steps := pods.Items[0].Annotations[benchv1.MPIStepsAnnotation]
	for _, p := range pods.Items {
		if got := p.Annotations[benchv1.MPIStepsAnnotation]; got == "" || got != steps {
			t.Fatalf("launcher %s carries the steps %q, launcher %s %q", p.Name, got, pods.Items[0].Name, steps)
		}
	}
	return steps
}
