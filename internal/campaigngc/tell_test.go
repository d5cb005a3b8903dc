package campaigngc

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTold(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC)) }
	wf := corev1.ObjectReference{Kind: "Workflow", Name: "s0"}
	events := []corev1.Event{
		{InvolvedObject: wf, Reason: "IdleExpired", Message: "BenchmarkPool s0-c2-none: idle for 60s", LastTimestamp: at(5)},
		{InvolvedObject: wf, Reason: "WorkflowGone", Message: "BenchmarkPool s0-c2-none: gone", LastTimestamp: at(9)},
		{InvolvedObject: wf, Reason: "IdleExpired", Message: "BenchmarkPool s0-c2-none-x: later, another pool", LastTimestamp: at(20)},
		{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "s0"}, Reason: "Killing", Message: "BenchmarkPool s0-c2-none: not the Workflow's", LastTimestamp: at(30)},
	}
	if got := Told(events, "BenchmarkPool", "s0-c2-none"); got != "WorkflowGone: gone" {
		t.Errorf("Told = %q, want the newest of the pool's: WorkflowGone: gone", got)
	}
	if got := Told(events, "TuningProfile", "s0-c2-none"); got != "" {
		t.Errorf("Told of a tuning nothing was said of = %q", got)
	}
}
