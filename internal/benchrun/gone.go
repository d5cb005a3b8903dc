package benchrun

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/children"
)

// takers are the pod events that say what ended a pod, as the API server
// keeps them for a while after the pod is gone, and what each means.
var takers = map[string]string{
	"Killing":              "the kubelet stopped it: it was deleted through the API, by a person or a controller",
	"TaintManagerEviction": "the taint manager evicted it from a node that stopped answering",
	"Evicted":              "the kubelet evicted it (node pressure)",
	"Preempted":            "the scheduler preempted it for a pod of higher priority",
	"NodeNotReady":         "its node stopped answering",
}

// whatTook says what took the pod of a lost attempt's Job that is gone
// (see tookBy), from the events of the namespace's pods.
func (m *machine) whatTook(ctx context.Context, a children.Attempt) (string, error) {
	var events corev1.EventList
	if err := m.APIReader.List(ctx, &events, client.InNamespace(m.b.GetNamespace()), client.MatchingFields{"involvedObject.kind": "Pod"}); err != nil {
		return "", err
	}
	return tookBy(events.Items, a.GoneJob, a.Created), nil
}

// tookBy is the newest telling event about a pod of job since the attempt
// was created, in words ("pod x: the kubelet stopped it: ..."), or that no
// event is left.
func tookBy(events []corev1.Event, job string, since time.Time) string {
	var newest *corev1.Event
	for i := range events {
		e := &events[i]
		if _, ok := takers[e.Reason]; !ok || !strings.HasPrefix(e.InvolvedObject.Name, job+"-") || eventTime(e).Before(since) {
			continue
		}
		if newest == nil || eventTime(e).After(eventTime(newest)) {
			newest = e
		}
	}
	if newest == nil {
		return "no event about its pod is left: gone with its node, or deleted before it ran"
	}
	return "pod " + newest.InvolvedObject.Name + ": " + takers[newest.Reason] + " (" + newest.Reason + " at " +
		eventTime(newest).UTC().Format("15:04:05Z") + ": " + clip(newest.Message) + ")"
}
