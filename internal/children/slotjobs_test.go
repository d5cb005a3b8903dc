package children

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/wrappers"
)

// The cache held a Job's completion before its pod's: the API server, read
// around it, has the pod, so the attempt succeeded and nothing is retried.
func TestConfirmLostReadsAroundTheCache(t *testing.T) {
	b := owner()
	labels := map[string]string{"benchwright.io/benchmark": "lat"}
	jobLabels := map[string]string{"benchwright.io/benchmark": "lat", benchv1.RepetitionLabel: "0", AttemptLabel: "0", SlotLabel: "0"}
	job := wrappers.MakeJob("lat-r0-a0", "hpc").UID("uid-job").Labels(jobLabels).CreationTimestamp(t0).
		ControlledBy(b, benchv1.GroupVersion.WithKind("MPIBenchmark")).Condition(batchv1.JobComplete, "", "").Obj()
	pod := wrappers.MakePod("lat-r0-a0-x", "hpc").Labels(jobLabels).NodeName("node-a").Phase(corev1.PodSucceeded).
		ControlledBy(job, batchv1.SchemeGroupVersion.WithKind("Job")).Obj()

	cached := []SlotRun{{Job: job}} // the pod not in the cache yet
	obs := ObserveSlots(cached)
	if obs.Phase != PhaseLost {
		t.Fatalf("from the cache: phase %v, want lost", obs.Phase)
	}
	api := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(job, pod).Build()
	_, got, err := ConfirmLost(context.Background(), api, b, labels, 0, 0, cached, obs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Phase != PhaseSucceeded || len(got.Finished) != 1 || got.Finished[0].Name != pod.Name {
		t.Errorf("around the cache: phase %v finished %v (%s), want succeeded with %s", got.Phase, got.Finished, got.Why, pod.Name)
	}

	// Gone for real: the API server has no pod either, and the loss stands.
	api = fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(job).Build()
	if _, got, _ := ConfirmLost(context.Background(), api, b, labels, 0, 0, cached, obs); got.Phase != PhaseLost {
		t.Errorf("without the pod: phase %v, want lost", got.Phase)
	}
}
