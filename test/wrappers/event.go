package wrappers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventWrapper builds an Event.
type EventWrapper struct{ corev1.Event }

// MakeEvent is an event about the object kind/name.
func MakeEvent(kind, name string) *EventWrapper {
	return &EventWrapper{corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name}}}
}

// Obj returns a copy of the event.
func (w *EventWrapper) Obj() corev1.Event { return *w.DeepCopy() }

// Said sets the event's reason and message.
func (w *EventWrapper) Said(reason, message string) *EventWrapper {
	w.Reason, w.Message = reason, message
	return w
}

// At sets when the event last happened.
func (w *EventWrapper) At(t time.Time) *EventWrapper {
	w.LastTimestamp = metav1.NewTime(t)
	return w
}
