package podlogs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWhyPending(t *testing.T) {
	pending := func(mods ...func(*corev1.PodStatus)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lat-r0-worker-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
		for _, m := range mods {
			m(&p.Status)
		}
		return p
	}
	scheduled := func(status corev1.ConditionStatus, msg string) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) {
			s.Conditions = append(s.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: status, Reason: "Unschedulable", Message: msg})
		}
	}
	waiting := func(init bool, name, reason, msg string) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) {
			cs := corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}
			if init {
				s.InitContainerStatuses = append(s.InitContainerStatuses, cs)
			} else {
				s.ContainerStatuses = append(s.ContainerStatuses, cs)
			}
		}
	}
	running := func(name string) func(*corev1.PodStatus) {
		return func(s *corev1.PodStatus) {
			s.ContainerStatuses = append(s.ContainerStatuses, corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
		}
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{
			name: "a running pod says nothing",
			pod:  &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		},
		{
			name: "a failed pod says nothing, even with waiting containers",
			pod: func() *corev1.Pod {
				p := pending(waiting(false, "worker", "ErrImagePull", "x"))
				p.Status.Phase = corev1.PodFailed
				return p
			}(),
		},
		{
			name: "pending without news",
			pod:  pending(),
		},
		{
			name: "unschedulable",
			pod:  pending(scheduled(corev1.ConditionFalse, "0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Insufficient cpu.")),
			want: []string{"pod lat-r0-worker-1 is not scheduled: 0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Insufficient cpu."},
		},
		{
			name: "PodScheduled False without a message",
			pod:  pending(scheduled(corev1.ConditionFalse, "")),
		},
		{
			name: "PodScheduled True",
			pod:  pending(scheduled(corev1.ConditionTrue, "scheduled")),
		},
		{
			name: "image pull error with its message",
			pod:  pending(scheduled(corev1.ConditionTrue, ""), waiting(false, "worker", "ErrImagePull", `failed to pull image "mpi:nope": not found`)),
			want: []string{`container worker of pod lat-r0-worker-1 is waiting: ErrImagePull (failed to pull image "mpi:nope": not found)`},
		},
		{
			name: "ContainerCreating without a message",
			pod:  pending(waiting(false, "worker", "ContainerCreating", "")),
			want: []string{"container worker of pod lat-r0-worker-1 is waiting: ContainerCreating"},
		},
		{
			name: "PodInitializing is not news; init containers come first",
			pod: pending(
				waiting(false, "worker", "PodInitializing", ""),
				waiting(true, "sysctl", "CreateContainerConfigError", `configmap "tuning" not found`),
				running("sidecar"),
				waiting(false, "exporter", "", "no reason"),
			),
			want: []string{`container sysctl of pod lat-r0-worker-1 is waiting: CreateContainerConfigError (configmap "tuning" not found)`},
		},
		{
			name: "scheduling first, then containers",
			pod: pending(
				waiting(false, "worker", "ImagePullBackOff", "Back-off pulling image"),
				scheduled(corev1.ConditionFalse, "persistentvolumeclaim \"scratch\" not found"),
			),
			want: []string{
				`pod lat-r0-worker-1 is not scheduled: persistentvolumeclaim "scratch" not found`,
				"container worker of pod lat-r0-worker-1 is waiting: ImagePullBackOff (Back-off pulling image)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, WhyPending(tt.pod)); diff != "" {
				t.Errorf("WhyPending (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeOf(t *testing.T) {
	tests := []struct {
		node, want string
	}{
		{"", "(unscheduled)"},
		{"gke-hpc-c2d-1a2b", "gke-hpc-c2d-1a2b"},
	}
	for _, tt := range tests {
		if got := NodeOf(&corev1.Pod{Spec: corev1.PodSpec{NodeName: tt.node}}); got != tt.want {
			t.Errorf("NodeOf(node %q) = %q, want %q", tt.node, got, tt.want)
		}
	}
}
