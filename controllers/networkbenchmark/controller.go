// Package networkbenchmark runs NetworkBenchmarks: one Job per node and
// repetition whose pod runs `benchwright netbench` (the node's share of the
// pairs, each end pinned with taskset), a headless Service through which the
// pods find each other, and the pods' reports parsed into per-pair figures,
// the nodes' topology in the status and in nodes.json.
package networkbenchmark

import (
	"cmp"
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools;tuningprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks;networkbenchmarks,verbs=get;list;watch

// Reconcile moves a benchmark one step.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b benchv1.NetworkBenchmark
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return r.Env.Reconcile(ctx, benchrun.Step{
		Object: &b, Common: &b.Status.BenchmarkStatusCommon,
		Status:       func() any { return b.Status.DeepCopy() },
		Advance:      func() (ctrl.Result, error) { return r.advance(ctx, &b) },
		StopChildren: func() error { return r.stopChildren(ctx, &b) },
		Display:      func() { syncDisplay(&b) },
	})
}

// advance does the work of one reconcile and returns when to look again.
func (r *Reconciler) advance(ctx context.Context, b *benchv1.NetworkBenchmark) (ctrl.Result, error) {
	if err := benchrun.CheckHostNetwork("spec.hostNetwork", b.Spec.HostNetwork, r.AllowHostNetwork); err != nil {
		return ctrl.Result{}, err
	}
	if held, res, err := r.Hold(ctx, b, kind, b.Spec.Placement, b.Spec.Timeouts, &b.Status.BenchmarkStatusCommon); held {
		return res, err
	}
	if _, err := r.Kit().CreateOwned(ctx, b, constructService(b)); err != nil {
		return ctrl.Result{}, err
	}
	st, err := benchrun.ListSlotJobs(ctx, r.Client, b, childLabels(b))
	if err != nil {
		return ctrl.Result{}, err
	}
	b.Status.Retries = benchrun.Retries(st.Jobs)
	rep := int(b.Status.CompletedRepetitions)
	nodes := int(b.Spec.NodesOrDefault())
	attempt, slots := st.Current(rep)
	if attempt < 0 || len(slots) < nodes {
		return r.startAttempt(ctx, b, rep, max(attempt, 0))
	}
	slots, obs, err := benchrun.ConfirmLost(ctx, r.Kit().Reader, b, childLabels(b), rep, attempt, slots, benchrun.ObserveSlots(slots))
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.Now()
	total := b.Spec.Repetitions
	switch obs.Phase {
	case benchrun.PhaseStarting:
		start := benchrun.StartTimeout(b.Spec.Timeouts)
		deadline := obs.Created.Add(start)
		if now.After(deadline) {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonTimeout,
				fmt.Sprintf("repetition %d/%d did not start within %s (spec.timeouts.start): %s", rep+1, total, start, obs.Why))
		}
		benchrun.SetCondition(&b.Status.BenchmarkStatusCommon, b.Generation, benchv1.ConditionRunning, metav1.ConditionFalse,
			benchv1.ReasonStarting, fmt.Sprintf("repetition %d/%d is starting: %s", rep+1, total, obs.Why))
		return ctrl.Result{RequeueAfter: deadline.Sub(now) + time.Second}, nil
	case benchrun.PhaseRunning:
		return r.Running(b, &b.Status.BenchmarkStatusCommon, rep, total, obs.Started, b.Spec.Timeouts, benchrun.AttemptNote(attempt))
	case benchrun.PhaseDeadline:
		return ctrl.Result{}, benchrun.Fail(benchv1.ReasonTimeout, fmt.Sprintf("repetition %d/%d exceeded the Job's deadline: %s", rep+1, total, obs.Why))
	case benchrun.PhaseToolFailed:
		return ctrl.Result{}, r.toolFailure(ctx, b, rep, slots, obs)
	case benchrun.PhaseLost:
		// The other nodes' pods stop too: the pairs of an attempt run together.
		return r.Retry(b, &b.Status.BenchmarkStatusCommon, benchrun.Lost{
			Rep: rep, Attempt: attempt, Total: total, MaxRetries: b.Spec.MaxRetries, Why: obs.Why,
		}, func() error { return benchrun.DeleteActiveJobs(ctx, r.Client, st.JobsOf(rep, attempt)) },
			func(next int) (ctrl.Result, error) { return r.startAttempt(ctx, b, rep, next) })
	}
	return r.collect(ctx, b, st, rep, attempt, obs)
}

// startAttempt creates the Jobs of one attempt of a repetition, one per node.
func (r *Reconciler) startAttempt(ctx context.Context, b *benchv1.NetworkBenchmark, rep, attempt int) (ctrl.Result, error) {
	if stale, err := r.Kit().Stale(ctx, b); err != nil || stale {
		return ctrl.Result{}, cmp.Or(err, benchrun.ErrStale)
	}
	image := cmp.Or(b.Spec.Image, r.Image)
	for slot := range int(b.Spec.NodesOrDefault()) {
		job, err := constructJob(b, jobParams{rep: rep, slot: slot, attempt: attempt, image: image})
		if err != nil {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		created, err := r.Kit().CreateOwned(ctx, b, job)
		if err != nil {
			return ctrl.Result{}, err
		}
		if created {
			r.Recorder.Eventf(b, corev1.EventTypeNormal, "Created", "Created Job %s for repetition %d/%d%s", job.Name, rep+1, b.Spec.Repetitions, benchrun.AttemptNote(attempt))
		}
	}
	return r.Starting(b, kind, &b.Status.BenchmarkStatusCommon, rep, b.Spec.Repetitions, attempt, b.Spec.Timeouts), nil
}

// stopChildren deletes the Jobs that still run after a failure.
func (r *Reconciler) stopChildren(ctx context.Context, b *benchv1.NetworkBenchmark) error {
	st, err := benchrun.ListSlotJobs(ctx, r.Client, b, childLabels(b))
	if err != nil {
		return err
	}
	return benchrun.DeleteActiveJobs(ctx, r.Client, st.Jobs)
}

// SetupWithManager registers the controller: it watches its benchmarks and
// the Jobs and Services they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.NetworkBenchmark{}).
		Owns(&batchv1.Job{}).
		Named("networkbenchmark").
		Complete(r)
}
