// Package mpibenchmark runs MPIBenchmarks through the MPI Operator: the
// launcher's steps in a ConfigMap, one kubeflow.org/v2beta1 MPIJob per
// repetition, the launcher's log parsed into the status and stored, raw and as
// samples, in the artifact store.
package mpibenchmark

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/results"
)

// Reconciler reconciles MPIBenchmarks.
type Reconciler struct {
	benchrun.Env
	// Images run each MPI implementation when the spec names none.
	Images map[benchv1.MPIImplementation]string
	// AllowHostNetwork is the admin's leave for layout.hostNetwork; without
	// it such a benchmark fails InvalidSpec.
	AllowHostNetwork bool
}

// +kubebuilder:rbac:groups=benchwright.io,resources=mpibenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=mpibenchmarks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=benchwright.io,resources=mpibenchmarks/finalizers,verbs=update
// +kubebuilder:rbac:groups=kubeflow.org,resources=mpijobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools;tuningprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks,verbs=get;list;watch

// Reconcile moves a benchmark one step: create what is missing, look at the
// current repetition's MPIJob, collect it when done, fail with a reason when
// it cannot succeed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b benchv1.MPIBenchmark
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
func (r *Reconciler) advance(ctx context.Context, b *benchv1.MPIBenchmark) (ctrl.Result, error) {
	if err := benchrun.CheckHostNetwork("spec.layout.hostNetwork", b.Spec.Layout.HostNetwork, r.AllowHostNetwork); err != nil {
		return ctrl.Result{}, err
	}
	// Before the first repetition: the pool Ready, the tuning Tuned, and this
	// benchmark first in the pool's queue.
	if held, res, err := r.Hold(ctx, b, kind, b.Spec.Placement, b.Spec.Timeouts, &b.Status.BenchmarkStatusCommon); held {
		return res, err
	}
	launch, err := buildLaunch(b)
	if err != nil {
		return ctrl.Result{}, benchrun.Fail(benchv1.ReasonInvalidSpec, err.Error())
	}
	cm, err := constructConfigMap(b, launch)
	if err != nil {
		return ctrl.Result{}, err
	}
	if _, err := r.Kit().CreateOwned(ctx, b, cm); err != nil {
		return ctrl.Result{}, err
	}
	st, err := r.listChildren(ctx, b)
	if err != nil {
		return ctrl.Result{}, err
	}
	b.Status.Retries = benchrun.Retries(st.jobs)
	rep := int(b.Status.CompletedRepetitions)
	attempt, job := st.current(rep)
	if job == nil {
		return r.startAttempt(ctx, b, launch, rep, 0)
	}
	obs := observe(job, st.podsOf(job))
	now, total := r.Now(), b.Spec.Repetitions
	switch obs.phase {
	case phaseStarting:
		deadline := obs.created.Add(startTimeout(b))
		if now.After(deadline) {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonTimeout, fmt.Sprintf(
				"repetition %d/%d: the MPI workers were not ready within %s (spec.timeouts.start): %s", rep+1, total, startTimeout(b), obs.why))
		}
		setRunning(b, metav1.ConditionFalse, benchv1.ReasonStarting, fmt.Sprintf("repetition %d/%d is starting: %s", rep+1, total, obs.why))
		return ctrl.Result{RequeueAfter: deadline.Sub(now) + time.Second}, nil
	case phaseRunning:
		return r.Running(b, &b.Status.BenchmarkStatusCommon, rep, total, obs.started, b.Spec.Timeouts, " (MPIJob "+job.Name+")")
	case phaseDeadline:
		return ctrl.Result{}, benchrun.Fail(benchv1.ReasonTimeout, fmt.Sprintf("repetition %d/%d: %s", rep+1, total, obs.why))
	case phaseFailed:
		return ctrl.Result{}, r.runFailure(ctx, b, launch, rep, obs)
	case phaseLost:
		return r.Retry(b, &b.Status.BenchmarkStatusCommon, benchrun.Lost{
			Rep: rep, Attempt: attempt, Total: b.Spec.Repetitions, MaxRetries: b.Spec.MaxRetries, Why: obs.why,
		}, nil, func(next int) (ctrl.Result, error) { return r.startAttempt(ctx, b, launch, rep, next) })
	}
	return r.collect(ctx, b, launch, st, job, rep, attempt, obs)
}

// startAttempt creates the MPIJob of one attempt of a repetition.
func (r *Reconciler) startAttempt(ctx context.Context, b *benchv1.MPIBenchmark, l *mpi.Launch, rep, attempt int) (ctrl.Result, error) {
	if stale, err := r.Kit().Stale(ctx, b); err != nil || stale {
		return ctrl.Result{}, cmp.Or(err, benchrun.ErrStale)
	}
	image := b.Spec.MPI.Image
	if image == "" {
		image = r.Images[b.Spec.MPI.ImplementationOrDefault()]
	}
	job := constructMPIJob(b, l, jobParams{rep: rep, attempt: attempt, image: image})
	created, err := r.Kit().CreateOwned(ctx, b, job)
	if err != nil {
		return ctrl.Result{}, err
	}
	if created {
		r.Recorder.Eventf(b, corev1.EventTypeNormal, "Created", "Created MPIJob %s for repetition %d/%d%s", job.Name, rep+1, b.Spec.Repetitions, benchrun.AttemptNote(attempt))
	}
	return r.Starting(b, kind, &b.Status.BenchmarkStatusCommon, rep, b.Spec.Repetitions, attempt, b.Spec.Timeouts), nil
}

// collect reads and parses the launcher's log of a finished repetition,
// stores it, and starts the next repetition or ends the benchmark.
func (r *Reconciler) collect(ctx context.Context, b *benchv1.MPIBenchmark, l *mpi.Launch, st *children, job *mpiv2.MPIJob, rep, attempt int, obs observation) (ctrl.Result, error) {
	release, err := benchrun.Collecting(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer release()
	pod := obs.launcher
	raw, err := benchrun.ReadOutput(ctx, r.Logs, pod, launcherContainer)
	if oe := (*benchrun.Outcome)(nil); errors.As(err, &oe) {
		oe.Message = fmt.Sprintf("repetition %d/%d, launcher %s: %s", rep+1, b.Spec.Repetitions, pod.Name, oe.Message)
		return ctrl.Result{}, oe
	}
	if err != nil {
		if done := job.Status.CompletionTime; done != nil && r.Now().Sub(done.Time) > benchrun.LogGrace {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonLogsUnavailable, fmt.Sprintf("the launcher's output (pod %s) could not be read for %s: %v", pod.Name, benchrun.LogGrace, err))
		}
		return ctrl.Result{}, err
	}
	run := r.Run(b, kind, b.Status.StartTime)
	if err := run.PutRawLog(ctx, rep, pod.Name, raw); err != nil {
		return ctrl.Result{}, err
	}
	samples, err := parseLauncherLog(b, l, raw)
	if err != nil {
		if oe := (*benchrun.Outcome)(nil); errors.As(err, &oe) {
			oe.Message = fmt.Sprintf("repetition %d/%d, launcher %s: %s", rep+1, b.Spec.Repetitions, pod.Name, oe.Message)
		}
		return ctrl.Result{}, err
	}
	var nodes []results.NodeInfo
	for _, name := range workerNodes(st.podsOf(job)) {
		n, err := benchrun.DescribeNode(ctx, r.Client, name, b.Spec.Tuning)
		if err != nil {
			return ctrl.Result{}, err
		}
		nodes = append(nodes, n)
	}
	labelSamples(b, samples, nodes, rep, attempt, benchrun.FinishTime(pod))
	summaries, err := run.AddRepetition(ctx, rep, samples, nodes, summarizeOptions(b))
	if err != nil {
		return ctrl.Result{}, err
	}
	b.Status.CompletedRepetitions = int32(rep + 1)
	b.Status.Results = statusResults(b, summaries)
	b.Status.Summary = summaryOf(b.Status.Results)
	benchrun.RecordNodes(&b.Status.BenchmarkStatusCommon, nodes)
	r.Recorder.Eventf(b, corev1.EventTypeNormal, "RepetitionCompleted", "Repetition %d/%d completed%s", rep+1, b.Spec.Repetitions, summaryNote(b.Status.Summary))
	if b.Status.CompletedRepetitions < b.Spec.Repetitions {
		return r.startAttempt(ctx, b, l, rep+1, 0)
	}
	return ctrl.Result{}, r.Succeed(ctx, b, kind, &b.Status.BenchmarkStatusCommon, b.Spec.Repetitions, b.Spec.Expectations, summaries)
}

// runFailure fails the benchmark with what the failed MPI run said, after
// storing the launcher's log.
func (r *Reconciler) runFailure(ctx context.Context, b *benchv1.MPIBenchmark, l *mpi.Launch, rep int, obs observation) error {
	said := "(no launcher pod to read)"
	if pod := obs.launcher; pod != nil {
		raw, err := benchrun.ReadLog(ctx, r.Logs, pod, launcherContainer)
		switch {
		case errors.As(err, new(*benchrun.LogTooLargeError)):
			said = benchrun.Quote(raw, err) // the diagnostics of its end
		case err != nil:
			said = fmt.Sprintf("(the launcher's log could not be read: %v)", err)
		default:
			if err := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, raw); err != nil {
				return err
			}
			if msg, ok := mpi.MismatchIn(raw); ok {
				return benchrun.Fail(benchv1.ReasonMPIMismatch, fmt.Sprintf("repetition %d/%d: %s", rep+1, b.Spec.Repetitions, msg))
			}
			said = failedStep(l, raw)
		}
	}
	return benchrun.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s; %s", rep+1, b.Spec.Repetitions, obs.why, said))
}

// failedStep quotes the step that failed, or the whole log's diagnostics.
func failedStep(l *mpi.Launch, raw []byte) string {
	steps, err := mpi.SplitSteps(raw)
	if err == nil {
		for _, s := range steps {
			if s.ExitCode != 0 {
				return stepFailure(l, s)
			}
		}
	}
	return benchrun.Diagnostics(raw)
}

// stepFailure says how a step failed: its exit code, what benchwright makes
// of it (mpi.StepHint), and what it said.
func stepFailure(l *mpi.Launch, s mpi.StepLog) string {
	program := ""
	if s.Index >= 1 && s.Index <= len(l.Steps) {
		program = l.Steps[s.Index-1].Program
	}
	msg := fmt.Sprintf("step %d (%s) exited with code %d; ", s.Index, s.Argv, s.ExitCode)
	if hint := mpi.StepHint(program, s.ExitCode, s.Output); hint != "" {
		msg += hint + "; "
	}
	return msg + benchrun.Diagnostics(s.Output)
}

// stopChildren deletes the MPIJobs that still run after a failure, so that
// they free the nodes.
func (r *Reconciler) stopChildren(ctx context.Context, b *benchv1.MPIBenchmark) error {
	st, err := r.listChildren(ctx, b)
	if err != nil {
		return err
	}
	for _, j := range st.jobs {
		if conditionTrue(j, mpiv2.JobSucceeded) || conditionTrue(j, mpiv2.JobFailed) {
			continue
		}
		if err := r.Delete(ctx, j, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// SetupWithManager registers the controller: it watches its benchmarks and
// the MPIJobs they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.MPIBenchmark{}).
		Owns(&mpiv2.MPIJob{}).
		Named("mpibenchmark").
		Complete(r)
}
