package managercache

import (
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// stripManagedFields is the cache's default transform (a ByObject transform
// replaces it, so each of the others strips managedFields too).
var stripManagedFields = cache.TransformStripManagedFields()

// stripJobTemplate drops a Job's pod template.
func stripJobTemplate(obj any) (any, error) {
	if j, ok := obj.(*batchv1.Job); ok {
		j.Spec.Template = corev1.PodTemplateSpec{}
	}
	return stripManagedFields(obj)
}

// stripPodInputs drops the inputs a pod reads from its own annotations (up
// to 128 KiB each): the manager wrote them and never reads them back.
func stripPodInputs(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		delete(p.Annotations, benchv1.FioJobFileAnnotation)
		delete(p.Annotations, benchv1.MPIStepsAnnotation)
	}
	return stripManagedFields(obj)
}

// stripNodeImages drops the images a kubelet lists in its Node's status.
func stripNodeImages(obj any) (any, error) {
	if n, ok := obj.(*corev1.Node); ok {
		n.Status.Images = nil
	}
	return stripManagedFields(obj)
}

// stripMPIJobTemplates drops the pod templates of an MPIJob's launcher and
// workers; their replica counts stay.
func stripMPIJobTemplates(obj any) (any, error) {
	if j, ok := obj.(*mpiv2.MPIJob); ok {
		for _, spec := range j.Spec.MPIReplicaSpecs {
			if spec != nil {
				spec.Template = corev1.PodTemplateSpec{}
			}
		}
	}
	return stripManagedFields(obj)
}
