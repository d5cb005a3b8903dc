package managercache

import (
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
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
