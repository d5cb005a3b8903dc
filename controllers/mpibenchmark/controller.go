// Package mpibenchmark runs MPIBenchmarks through the MPI Operator: one
// kubeflow.org/v2beta1 MPIJob per repetition (the launcher's steps in its
// template's annotation, read through a downward API volume), the
// launcher's log parsed into the status and stored, raw and as samples, in
// the artifact store.
package mpibenchmark

import (
	"context"
	"errors"
	"fmt"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
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
// +kubebuilder:rbac:groups=kubeflow.org,resources=mpijobs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=benchmarkpools;tuningprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=benchwright.io,resources=storagebenchmarks;mpibenchmarks;networkbenchmarks,verbs=get;list;watch

// reader reads around the cache, which holds only objects with benchwright's
// labels: the MPI Operator's launcher Jobs have none.
func (r *Reconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// Reconcile moves a benchmark one step of the shared state machine, which
// this package drives (see driver).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b benchv1.MPIBenchmark
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return r.Env.Reconcile(ctx, &driver{r: r, b: &b})
}

// runFailure fails the benchmark with what the failed MPI run said, after
// storing the launcher's log.
func (r *Reconciler) runFailure(ctx context.Context, b *benchv1.MPIBenchmark, l *mpi.Launch, rep int, obs observation) error {
	said := "(no launcher pod to read)"
	if pod := obs.launcher; pod != nil {
		raw, err := podlogs.ReadLog(ctx, r.Logs, pod, launcherContainer)
		switch {
		case errors.As(err, new(*podlogs.LogTooLargeError)):
			said = podlogs.Quote(raw, err) // the diagnostics of its end
		case err != nil:
			said = fmt.Sprintf("(the launcher's log could not be read: %v)", err)
		default:
			if err := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, raw); err != nil {
				return err
			}
			if msg, ok := mpi.MismatchIn(raw); ok {
				return outcome.Fail(benchv1.ReasonMPIMismatch, fmt.Sprintf("repetition %d/%d: %s", rep+1, b.Spec.Repetitions, msg))
			}
			said = failedStep(l, raw)
		}
	}
	return outcome.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s; %s", rep+1, b.Spec.Repetitions, obs.why, said))
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
	return podlogs.Diagnostics(raw)
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
	return msg + podlogs.Diagnostics(s.Output)
}

// stopChildren deletes the MPIJobs that still run after a failure, so that
// they free the nodes.
func (r *Reconciler) stopChildren(ctx context.Context, b *benchv1.MPIBenchmark) error {
	st, err := r.listChildren(ctx, b)
	if err != nil {
		return err
	}
	if err := r.releaseFinished(ctx, st.jobs, nil); err != nil {
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
	return r.Controller(ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.MPIBenchmark{}).
		Owns(&mpiv2.MPIJob{}).
		Named("mpibenchmark"), kind).
		Complete(r)
}
