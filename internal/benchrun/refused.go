package benchrun

import (
	"context"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/children"
)

// A Job whose pods the namespace's admission refuses (Pod Security,
// ResourceQuota, a webhook) makes none, and says why only in FailedCreate
// events: the attempt would wait "Job ... has no pod yet" until
// timeouts.start. After refusalGrace the manager reads those events: a Pod
// Security refusal, which no wait mends, fails the benchmark at once;
// another refusal is said in the Running condition, checked again every
// refusalRecheck.
const (
	refusalGrace   = 10 * time.Second
	refusalRecheck = 15 * time.Second
)

// refusal is the newest FailedCreate event of the attempt's children (its
// Jobs <benchmark>-r<rep>-..., its MPIJob <benchmark>-r<rep>), since it was
// created; empty without one.
func (m *machine) refusal(ctx context.Context, a children.Attempt) (string, error) {
	var events corev1.EventList
	err := m.APIReader.List(ctx, &events, client.InNamespace(m.b.GetNamespace()), client.MatchingFields{"reason": "FailedCreate"})
	if err != nil {
		return "", err
	}
	e := newestRefusal(events.Items, m.b.GetName()+"-r"+strconv.Itoa(a.Rep), a.Created)
	if e == nil {
		return "", nil
	}
	return e.InvolvedObject.Kind + " " + e.InvolvedObject.Name + " cannot create its pods: " + clip(e.Message), nil
}

// newestRefusal is the newest of events about base (an attempt's MPIJob)
// or base-... (its Jobs) since the attempt was created; nil when none.
func newestRefusal(events []corev1.Event, base string, since time.Time) *corev1.Event {
	var newest *corev1.Event
	for i := range events {
		e := &events[i]
		name := e.InvolvedObject.Name
		if name != base && !strings.HasPrefix(name, base+"-") || eventTime(e).Before(since.Add(-time.Second)) {
			continue
		}
		if newest == nil || eventTime(e).After(eventTime(newest)) {
			newest = e
		}
	}
	return newest
}

// eventTime is when an event last happened.
func eventTime(e *corev1.Event) time.Time {
	for _, t := range []time.Time{e.LastTimestamp.Time, e.EventTime.Time, e.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return e.CreationTimestamp.Time
}

// forbidden tells whether a refusal is one that waiting does not mend.
func forbidden(refusal string) bool { return strings.Contains(refusal, "violates PodSecurity") }
