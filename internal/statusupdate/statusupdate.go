// Package statusupdate is the end every reconcile shares: the status is
// written once, only when it changed; a conflict is a quiet requeue (the
// next reconcile reads afresh and redoes the work); and the reconcile's
// events are emitted only after its write succeeded, so that a write that
// loses a conflict leaves no event behind for a transition that never
// happened.
package statusupdate

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/crashpoint"
)

// Events holds a reconcile's events until its status is written. It is a
// record.EventRecorder.
type Events struct {
	to      record.EventRecorder
	pending []func()
}

// NewEvents buffers events for to.
func NewEvents(to record.EventRecorder) *Events { return &Events{to: to} }

// Event records an event once Flush runs.
func (e *Events) Event(obj runtime.Object, eventtype, reason, message string) {
	e.pending = append(e.pending, func() { e.to.Event(obj, eventtype, reason, message) })
}

// Eventf records a formatted event once Flush runs.
func (e *Events) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	e.pending = append(e.pending, func() { e.to.Eventf(obj, eventtype, reason, messageFmt, args...) })
}

// AnnotatedEventf records an annotated event once Flush runs.
func (e *Events) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	e.pending = append(e.pending, func() { e.to.AnnotatedEventf(obj, annotations, eventtype, reason, messageFmt, args...) })
}

// Flush emits the held events, in order.
func (e *Events) Flush() {
	for _, emit := range e.pending {
		emit()
	}
	e.pending = nil
}

// Written says what Write did.
type Written int

const (
	// Unchanged means the status did not change: nothing was written.
	Unchanged Written = iota
	// Updated means the status was written.
	Updated
	// Conflicted means someone wrote first: the caller requeues after ConflictRetry.
	Conflicted
)

// ConflictRetry is how soon a reconcile whose write conflicted looks again.
const ConflictRetry = 200 * time.Millisecond

// Write ends a reconcile of obj, read as before (a deep copy taken before
// the reconcile changed it): the status is written when it differs, then the
// events are emitted. A conflict drops the events and is not an error; any
// other failure is returned.
func Write(ctx context.Context, c client.Client, before, obj client.Object, events *Events) (Written, error) {
	w := Unchanged
	if !equality.Semantic.DeepEqual(before, obj) {
		crashpoint.Reach(crashpoint.StatusWrite)
		if err := c.Status().Update(ctx, obj); err != nil {
			if apierrors.IsConflict(err) {
				return Conflicted, nil
			}
			return Unchanged, err
		}
		w = Updated
	}
	events.Flush()
	return w, nil
}
