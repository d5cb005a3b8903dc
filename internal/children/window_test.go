package children

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/benchwright/benchwright/internal/results"
)

// A repetition's window is its tool containers' run: not the node-facts
// step before, nor the sampler sidecar that outlives them.
func TestWindows(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC)) }
	term := func(name string, start, end int) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: at(start), FinishedAt: at(end)}}}
	}
	pod := &corev1.Pod{Status: corev1.PodStatus{
		InitContainerStatuses: []corev1.ContainerStatus{term("node-facts", 1, 2), term("sampler", 2, 40)},
		ContainerStatuses:     []corev1.ContainerStatus{term("fio", 5, 30), term("drop-caches", 3, 4)},
	}}
	got := Windows(2, pod)
	want := []results.Window{{Repetition: 2, Start: at(3).Time, End: at(31).Time}}
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("Windows = %v, want %v", got, want)
	}
	// Under a second: it ran within that second.
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{term("osu", 7, 7)}
	if got := Windows(0, pod); len(got) != 1 || got[0].Start != at(7).Time || got[0].End != at(8).Time {
		t.Errorf("a run within one second: %v", got)
	}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "fio", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(5)}}}}
	if got := Windows(2, pod); got != nil {
		t.Errorf("a pod still running has a window: %v", got)
	}
}
