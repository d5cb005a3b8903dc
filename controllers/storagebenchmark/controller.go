// Package storagebenchmark runs StorageBenchmarks: the volumes under test as
// PersistentVolumeClaims, one Job per repetition and node slot (the fio job
// file in its pod template's annotation, read through a downward API
// volume), and the tools' output parsed into the status and stored, raw and
// as samples, in the artifact store.
package storagebenchmark

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
)

// Reconciler reconciles StorageBenchmarks.
type Reconciler struct {
	benchrun.Env
	// Image runs fio and dd when the spec names none.
	Image string
	// HostPathPrefixes are the directories of the nodes under which a
	// benchmark may mount host paths (the admin's allow-list); none allows
	// no host path.
	HostPathPrefixes []string
}

// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools;tuningprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks;networkbenchmarks,verbs=get;list;watch

// Reconcile moves a benchmark one step of the shared state machine, which
// this package drives (see driver).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b benchv1.StorageBenchmark
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return r.Env.Reconcile(ctx, &driver{r: r, b: &b})
}

// SetupWithManager registers the controller: it watches its benchmarks and
// the Jobs and claims they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.Controller(ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.StorageBenchmark{}).
		Owns(&batchv1.Job{}).
		Owns(&corev1.PersistentVolumeClaim{}).
		Named("storagebenchmark"), kind).
		Complete(r)
}
