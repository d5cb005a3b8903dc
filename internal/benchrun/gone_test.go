package benchrun

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/test/wrappers"
)

// A pod deleted by a person is said as the API's events say it, not
// guessed as lost with its node.
func TestTookBy(t *testing.T) {
	created := time.Date(2026, 11, 28, 12, 0, 5, 0, time.UTC)
	events := []corev1.Event{
		wrappers.MakeEvent("Pod", "fio-r0-a0-s0-x7k2p").Said("Scheduled", "Successfully assigned").At(created.Add(time.Second)).Obj(),
		wrappers.MakeEvent("Pod", "fio-r0-a0-s0-x7k2p").Said("Killing", "Stopping container fio").At(created.Add(7 * time.Second)).Obj(),
		wrappers.MakeEvent("Pod", "fio-r0-a0-s1-q9z2w").Said("Killing", "another slot's Job").At(created.Add(9 * time.Second)).Obj(),
		wrappers.MakeEvent("Pod", "fio-r0-a0-s0-old00").Said("Evicted", "before this attempt").At(created.Add(-time.Minute)).Obj(),
	}
	got := tookBy(events, "fio-r0-a0-s0", created)
	want := "pod fio-r0-a0-s0-x7k2p: the kubelet stopped it: it was deleted through the API, by a person or a controller (Killing at 12:00:12Z: Stopping container fio)"
	if got != want {
		t.Errorf("tookBy = %q\nwant %q", got, want)
	}
	if got := tookBy(events[:1], "fio-r0-a0-s0", created); got != "no event about its pod is left: gone with its node, or deleted before it ran" {
		t.Errorf("without a telling event: %q", got)
	}
}
