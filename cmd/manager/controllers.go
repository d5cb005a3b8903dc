package main

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/storagebenchmark"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/benchrun"
)

// controllerConfig is what the controllers take from the flags.
type controllerConfig struct {
	artifactStore string
	fioImage      string
	store         *artifacts.Store
}

// cacheOptions keep only benchwright's children of the kinds every cluster
// has many of: the manager does not hold every pod of the cluster in memory.
func cacheOptions() cache.Options {
	owned, err := labels.NewRequirement(benchv1.KindLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant requirement
	}
	sel := labels.NewSelector().Add(*owned)
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Pod{}:                   {Label: sel},
		&batchv1.Job{}:                  {Label: sel},
		&corev1.PersistentVolumeClaim{}: {Label: sel},
		&corev1.ConfigMap{}:             {Label: sel},
	}}
}

// setupControllers registers every controller with the manager.
func setupControllers(mgr ctrl.Manager, cfg controllerConfig) error {
	clientset, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	return (&storagebenchmark.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorderFor("storagebenchmark-controller"),
		Logs:      benchrun.APILogReader{Client: clientset},
		Store:     cfg.store,
		Image:     cfg.fioImage,
	}).SetupWithManager(mgr)
}
