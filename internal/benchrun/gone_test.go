package benchrun

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pod deleted by a person is said as the API's events say it, not
// guessed as lost with its node.
func TestTookBy(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC)) }
	pod := func(name, reason, msg string, s int) corev1.Event {
		return corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: name}, Reason: reason, Message: msg, LastTimestamp: at(s)}
	}
	events := []corev1.Event{
		pod("fio-r0-a0-s0-x7k2p", "Scheduled", "Successfully assigned", 1),
		pod("fio-r0-a0-s0-x7k2p", "Killing", "Stopping container fio", 12),
		pod("fio-r0-a0-s1-q9z2w", "Killing", "Stopping container fio", 14), // another slot's Job
		pod("fio-r0-a0-s0-old00", "Evicted", "before this attempt", 2),
	}
	got := tookBy(events, "fio-r0-a0-s0", at(5).Time)
	want := "pod fio-r0-a0-s0-x7k2p: the kubelet stopped it: it was deleted through the API, by a person or a controller (Killing at 12:00:12Z: Stopping container fio)"
	if got != want {
		t.Errorf("tookBy = %q\nwant %q", got, want)
	}
	if got := tookBy(events[:1], "fio-r0-a0-s0", at(0).Time); got != "no event about its pod is left: gone with its node, or deleted before it ran" {
		t.Errorf("without a telling event: %q", got)
	}
}
