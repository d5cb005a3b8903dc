// Package managercache is the cache the manager builds its client on: only
// benchwright's children of the kinds every cluster has many of, without
// what no controller reads of them. The integration tests' managers use it
// too, so that a controller reading what the cache strips fails there.
package managercache

import (
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Options keep only benchwright's children of the kinds every cluster has
// many of: the manager does not hold every pod of the cluster in memory.
// Nor what it never reads of the objects it holds.
// DaemonSets and ConfigMaps (the tuners') are watched in tunerNamespace
// alone, the manager's namespace, where its Role lets it list them: no
// benchmark has a ConfigMap (a pod reads its input from its own annotation).
func Options(tunerNamespace string) cache.Options {
	owned, err := labels.NewRequirement(benchv1.KindLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant requirement
	}
	sel := labels.NewSelector().Add(*owned)
	return cache.Options{
		// No code reads managedFields, nor the pod templates of the Jobs and
		// MPIJobs benchwright made (it builds them; it reads their status, and
		// an MPIJob's worker count), nor the inputs its pods carry in their
		// annotations, nor the images a kubelet lists in its Node's status:
		// the cache keeps none of them.
		DefaultTransform: stripManagedFields,
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}:                   {Label: sel, Transform: stripPodInputs},
			&batchv1.Job{}:                  {Label: sel, Transform: stripJobTemplate},
			&corev1.PersistentVolumeClaim{}: {Label: sel},
			&corev1.ConfigMap{}:             {Label: sel, Namespaces: map[string]cache.Config{tunerNamespace: {}}},
			&mpiv2.MPIJob{}:                 {Label: sel, Transform: stripMPIJobTemplates},
			&appsv1.DaemonSet{}:             {Label: sel, Namespaces: map[string]cache.Config{tunerNamespace: {}}},
			&corev1.Node{}:                  {Transform: stripNodeImages},
			// A NetworkBenchmark's own; a cluster may have many others.
			&networkingv1.NetworkPolicy{}: {Label: sel},
		},
	}
}
