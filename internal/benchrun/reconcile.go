package benchrun

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// ErrStale stops a reconcile that read an out-of-date benchmark from the
// cache before it creates anything (see Kit.Stale); it looks again shortly.
var ErrStale = errors.New("the cached benchmark is out of date")

const staleRetry = 200 * time.Millisecond

// Step is one kind's part of a reconcile of one benchmark.
type Step struct {
	// Object is the benchmark as read, Common its common status.
	Object client.Object
	Common *benchv1.BenchmarkStatusCommon
	// Status returns a deep copy of the whole status, to tell a change.
	Status func() any
	// Advance does the work and says when to look again; an *Outcome error
	// fails the benchmark.
	Advance func() (ctrl.Result, error)
	// StopChildren deletes what still runs after a failure.
	StopChildren func() error
	// Display derives the status' display fields.
	Display func()
}

// Reconcile runs one reconcile of a benchmark: nothing once it is deleted or
// finished; else Advance, an Outcome turned into the Failed condition (and
// running children stopped), the display fields, and a status write when the
// status changed (optimistic: a conflict is retried with a fresh read), after
// which the queue and run durations it completed are observed.
func (e *Env) Reconcile(ctx context.Context, s Step) (ctrl.Result, error) {
	if !s.Object.GetDeletionTimestamp().IsZero() || Finished(s.Common) {
		return ctrl.Result{}, nil
	}
	orig, wasStarted := s.Status(), s.Common.StartTime != nil
	res, err := s.Advance()
	if errors.Is(err, ErrStale) {
		return ctrl.Result{RequeueAfter: staleRetry}, nil
	}
	if oe := (*Outcome)(nil); errors.As(err, &oe) {
		e.markFailed(ctx, s, oe)
		res, err = ctrl.Result{}, s.StopChildren()
	}
	s.Display()
	if !equality.Semantic.DeepEqual(orig, s.Status()) {
		if uerr := e.Status().Update(ctx, s.Object); uerr != nil {
			return ctrl.Result{}, uerr
		}
		e.observeDurations(s.Object, wasStarted, s.Common)
	}
	return res, err
}

// markFailed sets Failed with the outcome's reason and message, ends Running,
// and records the end and an event.
func (e *Env) markFailed(ctx context.Context, s Step, oe *Outcome) {
	log.FromContext(ctx).Info("benchmark failed", "reason", oe.Reason, "message", oe.Message)
	now := MetaTime(e.Now())
	s.Common.CompletionTime = &now
	gen := s.Object.GetGeneration()
	SetCondition(s.Common, gen, benchv1.ConditionRunning, metav1.ConditionFalse, oe.Reason, "the benchmark failed: see the Failed condition")
	SetCondition(s.Common, gen, benchv1.ConditionFailed, metav1.ConditionTrue, oe.Reason, oe.Message)
	e.Recorder.Event(s.Object, corev1.EventTypeWarning, oe.Reason, oe.Message)
}
