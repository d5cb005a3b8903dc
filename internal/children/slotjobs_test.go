package children

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// The cache held a Job's completion before its pod's: the API server, read
// around it, has the pod, so the attempt succeeded and nothing is retried.
func TestConfirmLostReadsAroundTheCache(t *testing.T) {
	b := owner()
	labels := map[string]string{"benchwright.io/benchmark": "lat"}
	job := jobWith("lat-r0-a0", batchv1.JobComplete, "", "")
	job.Namespace, job.UID = "hpc", "uid-job"
	job.Labels = map[string]string{"benchwright.io/benchmark": "lat", benchv1.RepetitionLabel: "0", AttemptLabel: "0", SlotLabel: "0"}
	job.OwnerReferences = []metav1.OwnerReference{controllerRef("lat", "uid-lat", true)}
	pod := podFixture("lat-r0-a0-x", corev1.PodSucceeded)
	pod.Namespace, pod.Labels = "hpc", job.Labels
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}}

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
