package benchrun

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The refusal of an attempt is the newest FailedCreate event of its own
// children, since it was created: not an older attempt's, not another
// repetition's or benchmark's.
func TestNewestRefusal(t *testing.T) {
	created := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	event := func(kind, name string, at time.Time, msg string) corev1.Event {
		return corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name}, LastTimestamp: metav1.NewTime(at), Message: msg}
	}
	psa := `pods "fio-r0-n0-x" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`
	events := []corev1.Event{
		event("Job", "fio-r0-n0", created.Add(-time.Minute), "an older attempt's"),
		event("Job", "fio-r1-n0", created.Add(5*time.Second), "another repetition's"),
		event("Job", "fio-other-r0-n0", created.Add(5*time.Second), "another benchmark's"),
		event("Job", "fio-r0-n0", created.Add(3*time.Second), "the first refusal"),
		event("Job", "fio-r0-n1", created.Add(8*time.Second), psa),
	}
	if e := newestRefusal(events, "fio-r0", created); e == nil || e.Message != psa || !forbidden(e.Message) {
		t.Errorf("refusal %+v, want the Pod Security one of fio-r0-n1", e)
	}
	if e := newestRefusal(events[:3], "fio-r0", created); e != nil {
		t.Errorf("refusal %+v of none of the attempt's children", e)
	}
	mpi := []corev1.Event{event("MPIJob", "osu-r0", created.Add(time.Second), "quota exceeded")}
	if e := newestRefusal(mpi, "osu-r0", created); e == nil || forbidden(e.Message) {
		t.Errorf("an MPIJob's refusal %+v: want it, and not taken as final", e)
	}
}
