// Package networkbenchmark runs NetworkBenchmarks: one Job per node and
// repetition whose pod runs `benchwright netbench` (the node's share of the
// pairs, each end pinned with taskset), a headless Service through which the
// pods of an attempt find each other, a NetworkPolicy that lets only the
// benchmark's own pods connect to them, and the pods' reports parsed into per-pair figures,
// the nodes' topology in the status and in nodes.json.
package networkbenchmark

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
)

// Reconciler reconciles NetworkBenchmarks.
type Reconciler struct {
	benchrun.Env
	// Image runs benchwright, fabtests and iperf3 when the spec names none.
	Image string
	// AllowHostNetwork is the admin's leave for hostNetwork; without it such
	// a benchmark fails InvalidSpec.
	AllowHostNetwork bool
}

// +kubebuilder:rbac:groups=benchwright.io,resources=networkbenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=networkbenchmarks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=networkbenchmarks/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools;tuningprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks;networkbenchmarks,verbs=get;list;watch

// Reconcile moves a benchmark one step of the shared state machine, which
// this package drives (see driver).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b benchv1.NetworkBenchmark
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return r.Env.Reconcile(ctx, &driver{r: r, b: &b})
}

// SetupWithManager registers the controller: it watches its benchmarks and
// the Jobs and Services they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.Controller(ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.NetworkBenchmark{}).
		Owns(&batchv1.Job{}).
		Named("networkbenchmark"), kind).
		Complete(r)
}
