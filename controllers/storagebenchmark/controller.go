// Package storagebenchmark runs StorageBenchmarks: the volumes under test as
// PersistentVolumeClaims, the fio job file in a ConfigMap, one Job per
// repetition and node slot, and the tools' output parsed into the status and
// stored, raw and as samples, in the artifact store.
package storagebenchmark

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/results"
)

// Reconciler reconciles StorageBenchmarks.
type Reconciler struct {
	benchrun.Env
	// Image runs fio and dd when the spec names none.
	Image string
	// HostPathPrefixes are the directories of the nodes under which a
	// benchmark may mount host paths (the admin's allow-list); none allows
	// every path the API accepts.
	HostPathPrefixes []string
}

// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools;tuningprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks,verbs=get;list;watch

// Reconcile moves a benchmark one step: create what is missing, look at the
// current repetition, collect it when done, fail it with a reason when it
// cannot succeed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b benchv1.StorageBenchmark
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
func (r *Reconciler) advance(ctx context.Context, b *benchv1.StorageBenchmark) (ctrl.Result, error) {
	// Before the first repetition: the pool Ready, the tuning Tuned, and this
	// benchmark first in the pool's queue.
	if held, res, err := r.Hold(ctx, b, kind, b.Spec.Placement, b.Spec.Timeouts, &b.Status.BenchmarkStatusCommon); held {
		return res, err
	}
	if err := r.ensureInputs(ctx, b); err != nil {
		return ctrl.Result{}, err
	}
	st, err := r.listChildren(ctx, b)
	if err != nil {
		return ctrl.Result{}, err
	}
	b.Status.Retries = benchrun.Retries(st.Jobs)
	rep := int(b.Status.CompletedRepetitions)
	attempt, slots := st.Current(rep)
	if attempt < 0 || len(slots) < int(b.Spec.Nodes) {
		// No attempt yet, or one whose Jobs were only partly created.
		return r.startAttempt(ctx, b, rep, max(attempt, 0))
	}
	_, obs, err := benchrun.ConfirmLost(ctx, r.Kit().Reader, b, childLabels(b), rep, attempt, slots, benchrun.ObserveSlots(slots))
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.Now()
	total := b.Spec.Repetitions
	switch obs.Phase {
	case benchrun.PhaseStarting:
		deadline := obs.Created.Add(startTimeout(b))
		unbound := unboundClaims(st.claims)
		why := obs.Why
		if len(unbound) > 0 {
			why = "PersistentVolumeClaim(s) not bound: " + strings.Join(unbound, ", ") + "; " + why
		}
		if now.After(deadline) {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonTimeout,
				fmt.Sprintf("repetition %d/%d did not start within %s (spec.timeouts.start): %s", rep+1, total, startTimeout(b), why))
		}
		reason := benchv1.ReasonStarting
		if len(unbound) > 0 {
			reason = benchv1.ReasonVolumesPending
		}
		setRunning(b, metav1.ConditionFalse, reason, fmt.Sprintf("repetition %d/%d is starting: %s", rep+1, total, why))
		return ctrl.Result{RequeueAfter: deadline.Sub(now) + time.Second}, nil
	case benchrun.PhaseRunning:
		return r.Running(b, &b.Status.BenchmarkStatusCommon, rep, total, obs.Started, b.Spec.Timeouts, benchrun.AttemptNote(attempt))
	case benchrun.PhaseDeadline:
		return ctrl.Result{}, benchrun.Fail(benchv1.ReasonTimeout, fmt.Sprintf("repetition %d/%d exceeded the Job's deadline: %s", rep+1, total, obs.Why))
	case benchrun.PhaseToolFailed:
		return ctrl.Result{}, r.toolFailure(ctx, b, rep, obs)
	case benchrun.PhaseLost:
		// The other node slots of the attempt stop too: a distributed run restarts whole.
		return r.Retry(b, &b.Status.BenchmarkStatusCommon, benchrun.Lost{
			Rep: rep, Attempt: attempt, Total: total, MaxRetries: b.Spec.MaxRetries, Why: obs.Why,
		}, func() error { return benchrun.DeleteActiveJobs(ctx, r.Client, st.JobsOf(rep, attempt)) },
			func(next int) (ctrl.Result, error) { return r.startAttempt(ctx, b, rep, next) })
	}
	return r.collect(ctx, b, st, rep, attempt, obs)
}

// ensureInputs creates the fio job file's ConfigMap and the claims, once.
func (r *Reconciler) ensureInputs(ctx context.Context, b *benchv1.StorageBenchmark) error {
	if err := checkHostPaths(b, r.HostPathPrefixes); err != nil {
		return benchrun.Fail(benchv1.ReasonInvalidSpec, err.Error())
	}
	if b.Spec.Fio != nil {
		jobFile, err := constructJobFile(b)
		if err != nil {
			return benchrun.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		if _, err := r.Kit().CreateOwned(ctx, b, constructConfigMap(b, jobFile)); err != nil {
			return err
		}
	}
	for _, pvc := range constructPVCs(b) {
		if _, err := r.Kit().CreateOwned(ctx, b, pvc); err != nil {
			return err
		}
	}
	return nil
}

// startAttempt creates the Jobs of one attempt of a repetition, one per node slot.
func (r *Reconciler) startAttempt(ctx context.Context, b *benchv1.StorageBenchmark, rep, attempt int) (ctrl.Result, error) {
	// Creating Jobs from a stale view could start a repetition twice, or again
	// after the benchmark failed: check the benchmark is as read.
	if stale, err := r.Kit().Stale(ctx, b); err != nil || stale {
		return ctrl.Result{}, cmp.Or(err, benchrun.ErrStale)
	}
	image := b.Spec.Image
	if image == "" {
		image = r.Image
	}
	for slot := range int(b.Spec.Nodes) {
		job, err := constructJob(b, jobParams{rep: rep, slot: slot, attempt: attempt, image: image, dropCachesImage: r.Image})
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

// collect reads and parses the output of a finished repetition, stores it, and
// starts the next repetition or ends the benchmark.
func (r *Reconciler) collect(ctx context.Context, b *benchv1.StorageBenchmark, st *children, rep, attempt int, obs benchrun.Observation) (ctrl.Result, error) {
	release, err := benchrun.Collecting(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer release()
	// One pod at a time: its raw log is stored and let go before the next is read.
	var samples []results.Sample
	var nodes []results.NodeInfo
	for _, pod := range obs.Finished {
		node, err := benchrun.DescribeNode(ctx, r.Client, pod.Spec.NodeName, b.Spec.Tuning)
		if err != nil {
			return ctrl.Result{}, err
		}
		out, err := r.readOutput(ctx, b, pod)
		out.node = node
		if len(out.raw) > 0 {
			if serr := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, out.raw); serr != nil {
				return ctrl.Result{}, serr
			}
		}
		if err != nil {
			if oe := (*benchrun.Outcome)(nil); errors.As(err, &oe) {
				oe.Message = fmt.Sprintf("repetition %d/%d, pod %s on node %s: %s", rep+1, b.Spec.Repetitions, pod.Name, benchrun.NodeOf(pod), oe.Message)
				return ctrl.Result{}, oe
			}
			if done := st.CompletedAt(pod); !done.IsZero() && r.Now().Sub(done) > benchrun.LogGrace {
				return ctrl.Result{}, benchrun.Fail(benchv1.ReasonLogsUnavailable, fmt.Sprintf("the output of pod %s could not be read for %s: %v", pod.Name, benchrun.LogGrace, err))
			}
			return ctrl.Result{}, err
		}
		labelSamples(b, &out, rep, attempt)
		if samples = append(samples, out.samples...); len(samples) > results.MaxRunSamples {
			return ctrl.Result{}, benchrun.TooManySamples(fmt.Sprintf("repetition %d/%d", rep+1, b.Spec.Repetitions))
		}
		nodes = append(nodes, out.node)
	}
	summaries, err := r.Run(b, kind, b.Status.StartTime).AddRepetition(ctx, rep, samples, nodes, results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions)})
	if err != nil {
		return ctrl.Result{}, err
	}
	b.Status.CompletedRepetitions = int32(rep + 1)
	b.Status.Results = statusResults(summaries)
	b.Status.Headline = headline(b, b.Status.Results)
	benchrun.RecordNodes(&b.Status.BenchmarkStatusCommon, nodes)
	r.Recorder.Eventf(b, corev1.EventTypeNormal, "RepetitionCompleted", "Repetition %d/%d completed%s", rep+1, b.Spec.Repetitions, headlineNote(b))
	if b.Status.CompletedRepetitions < b.Spec.Repetitions {
		return r.startAttempt(ctx, b, rep+1, 0)
	}
	return ctrl.Result{}, r.Succeed(ctx, b, kind, &b.Status.BenchmarkStatusCommon, b.Spec.Repetitions, b.Spec.Expectations, summaries)
}

// toolFailure fails the benchmark with the failed container's exit code and
// the tail of its log, after storing the log.
func (r *Reconciler) toolFailure(ctx context.Context, b *benchv1.StorageBenchmark, rep int, obs benchrun.Observation) error {
	pod := obs.Failed
	log, err := benchrun.ReadLog(ctx, r.Logs, pod, obs.Container)
	if err == nil {
		if serr := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, log); serr != nil {
			return serr
		}
	}
	quote := benchrun.Quote(log, err)
	what := obs.Container
	if what != fioContainer {
		what = "container " + what
	}
	return benchrun.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s exited with code %d in pod %s on node %s; %s",
		rep+1, b.Spec.Repetitions, what, obs.ExitCode, pod.Name, benchrun.NodeOf(pod), quote))
}

// stopChildren deletes the Jobs that still run after a failure, so that they
// free the nodes.
func (r *Reconciler) stopChildren(ctx context.Context, b *benchv1.StorageBenchmark) error {
	st, err := r.listChildren(ctx, b)
	if err != nil {
		return err
	}
	return benchrun.DeleteActiveJobs(ctx, r.Client, st.Jobs)
}

// SetupWithManager registers the controller: it watches its benchmarks and
// the Jobs and claims they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.StorageBenchmark{}).
		Owns(&batchv1.Job{}).
		Owns(&corev1.PersistentVolumeClaim{}).
		Named("storagebenchmark").
		Complete(r)
}
