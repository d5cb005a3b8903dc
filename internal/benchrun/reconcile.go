package benchrun

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/statusupdate"
)

// ErrStale stops a reconcile that read an out-of-date benchmark from the
// cache before it creates anything (see children.Kit.Stale); it looks again
// shortly.
var ErrStale = errors.New("the cached benchmark is out of date")

const staleRetry = 200 * time.Millisecond

// Reconcile runs one reconcile of the benchmark d drives: nothing once it is
// deleted or finished (but for expectations that wait for a baseline: see
// reexpect); else one step of the state machine, an Outcome
// turned into the Failed condition (and running children stopped), the
// display fields, and one status write when the status changed. A conflict
// is a quiet requeue; the events of the step are emitted only after its
// write, after which the queue and run durations it completed are observed.
func (e *Env) Reconcile(ctx context.Context, d Driver) (ctrl.Result, error) {
	b := d.Benchmark()
	st := b.BenchmarkStatus()
	if !b.GetDeletionTimestamp().IsZero() || outcome.Finished(st) {
		writes.forget(b.GetUID())
		if b.GetDeletionTimestamp().IsZero() && awaitsBaseline(b) {
			return e.reexpect(ctx, d)
		}
		return ctrl.Result{}, nil
	}
	before, wasStarted := b.DeepCopyObject().(Benchmark), st.StartTime != nil
	events := statusupdate.NewEvents(e.Recorder)
	m := newMachine(e, d)
	m.Recorder = events
	res, err := m.advance(ctx)
	if errors.Is(err, ErrStale) {
		return ctrl.Result{RequeueAfter: staleRetry}, nil
	}
	if oe := (*outcome.Outcome)(nil); errors.As(err, &oe) {
		m.fail(ctx, oe)
		res, err = ctrl.Result{}, d.StopChildren(ctx)
	}
	d.Display()
	written, werr := statusupdate.Write(ctx, e.Client, before, b, events)
	if apierrors.IsInvalid(werr) && m.collected {
		// The status a tool's output made was refused (a field over its
		// bound): retried, it would be refused again, each time after
		// reading every log in a turn to collect, and the benchmark would
		// never end. The output is the tool's fault: it fails the benchmark.
		written, werr = m.refused(ctx, before, werr)
	}
	switch {
	case werr != nil:
		return ctrl.Result{}, werr
	case written == statusupdate.Conflicted:
		return ctrl.Result{RequeueAfter: statusupdate.ConflictRetry}, nil
	case written == statusupdate.Updated:
		writes.wrote(b)
		e.observeDurations(b, wasStarted, st)
	}
	return statusupdate.Quiet(res, err)
}

// refused fails the benchmark UnparsableOutput after the API server
// refused the status its collected output made: the status goes back to
// what was read, with the failure, and the children are stopped.
func (m *machine) refused(ctx context.Context, before Benchmark, refusal error) (statusupdate.Written, error) {
	reflect.ValueOf(m.b).Elem().Set(reflect.ValueOf(before.DeepCopyObject()).Elem())
	events := statusupdate.NewEvents(m.Recorder)
	m.Recorder = events
	m.fail(ctx, &outcome.Outcome{Reason: benchv1.ReasonUnparsableOutput, Message: fmt.Sprintf(
		"repetition %d/%d: the API server refused the status the tool's output made: %v", m.st.CompletedRepetitions+1, m.spec.Repetitions, refusal)})
	if err := m.d.StopChildren(ctx); err != nil {
		return statusupdate.Unchanged, err
	}
	m.d.Display()
	return statusupdate.Write(ctx, m.Client, before, m.b, events)
}

// fail sets Failed with the outcome's reason and message, ends Running, and
// records the end and an event.
func (m *machine) fail(ctx context.Context, oe *outcome.Outcome) {
	log.FromContext(ctx).Info("benchmark failed", "reason", oe.Reason, "message", oe.Message)
	now := statusupdate.MetaTime(m.Now())
	m.st.CompletionTime = &now
	m.setRunning(metav1.ConditionFalse, oe.Reason, "the benchmark failed: see the Failed condition")
	// A message may quote tool output: clipped, it never makes the API
	// server refuse the status (a condition's message is at most 32 KiB).
	msg := clip(oe.Message)
	m.setCondition(benchv1.ConditionFailed, metav1.ConditionTrue, oe.Reason, msg)
	m.Recorder.Event(m.b, corev1.EventTypeWarning, oe.Reason, msg)
}
