package campaigngc

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/test/wrappers"
)

// Told gives the newest of what the manager told the Workflow of a pool:
// not another pool's, not an event on another object.
func TestTold(t *testing.T) {
	var events []corev1.Event
	for i, e := range []struct{ kind, reason, msg string }{
		{"Workflow", "IdleExpired", "BenchmarkPool s0-c2-none: idle for 60s"},
		{"Workflow", "WorkflowGone", "BenchmarkPool s0-c2-none: gone"},
		{"Pod", "Killing", "BenchmarkPool s0-c2-none: not the Workflow's"},
		{"Workflow", "IdleExpired", "BenchmarkPool s0-c2-none-x: another pool's"},
	} {
		events = append(events, wrappers.MakeEvent(e.kind, "s0").Said(e.reason, e.msg).At(time.Unix(int64(i), 0)).Obj())
	}
	if got := Told(events, "BenchmarkPool", "s0-c2-none"); got != "WorkflowGone: gone" {
		t.Errorf("Told = %q, want the newest of the pool's: WorkflowGone: gone", got)
	}
	if got := Told(events, "TuningProfile", "s0-c2-none"); got != "" {
		t.Errorf("Told of a tuning nothing was said of = %q", got)
	}
}
