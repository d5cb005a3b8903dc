package campaigngc

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Tell records an event on obj (kind names its kind) and, when obj is a
// campaign's, the same event on the Workflow that made it, its message
// starting "<kind> <name>: ". A cluster-scoped object's own events land in
// the default namespace, which a campaign's steps cannot read; the
// Workflow's are in the campaign's namespace, where its cell and its report
// find why their pool or tuning is gone (see Told).
func Tell(rec record.EventRecorder, obj client.Object, kind, eventtype, reason, message string) {
	rec.Event(obj, eventtype, reason, message)
	if w, ok, err := Of(obj); ok && err == nil {
		rec.Event(w.Ref(), eventtype, reason, kind+" "+obj.GetName()+": "+message)
	}
}

// Ref is a reference to the Workflow, for its events.
func (w Workflow) Ref() *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: WorkflowKind.GroupVersion().String(), Kind: WorkflowKind.Kind,
		Namespace: w.Key.Namespace, Name: w.Key.Name, UID: w.UID}
}

// Told is the newest of a Workflow's events (as Tell records them) about
// the object of kind and name, as "Reason: message"; empty when none.
func Told(events []corev1.Event, kind, name string) string {
	prefix := kind + " " + name + ": "
	var newest *corev1.Event
	for i := range events {
		e := &events[i]
		if e.InvolvedObject.Kind != WorkflowKind.Kind || !strings.HasPrefix(e.Message, prefix) {
			continue
		}
		if newest == nil || when(e).After(when(newest)) {
			newest = e
		}
	}
	if newest == nil {
		return ""
	}
	return fmt.Sprintf("%s: %s", newest.Reason, strings.TrimPrefix(newest.Message, prefix))
}

// when is when an event last happened.
func when(e *corev1.Event) time.Time {
	return cmp.Or(e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time, e.CreationTimestamp.Time)
}
