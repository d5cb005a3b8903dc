package podlogs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/test/wrappers"
)

func TestWhyPending(t *testing.T) {
	pending := func() *wrappers.PodWrapper { return wrappers.MakePod("lat-r0-worker-1", "").Phase(corev1.PodPending) }
	scheduledTrue := func(msg string) corev1.PodCondition {
		return corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, Reason: "Unschedulable", Message: msg}
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want []string
	}{
		{
			name: "a running pod says nothing",
			pod:  wrappers.MakePod("p", "").Phase(corev1.PodRunning).Obj(),
		},
		{
			name: "a failed pod says nothing, even with waiting containers",
			pod:  pending().ContainerWaiting("worker", "ErrImagePull", "x").Phase(corev1.PodFailed).Obj(),
		},
		{
			name: "pending without news",
			pod:  pending().Obj(),
		},
		{
			name: "unschedulable",
			pod:  pending().Unschedulable("0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Insufficient cpu.").Obj(),
			want: []string{"pod lat-r0-worker-1 is not scheduled: 0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 Insufficient cpu."},
		},
		{
			name: "PodScheduled False without a message",
			pod:  pending().Unschedulable("").Obj(),
		},
		{
			name: "PodScheduled True",
			pod:  pending().Condition(scheduledTrue("scheduled")).Obj(),
		},
		{
			name: "image pull error with its message",
			pod:  pending().Condition(scheduledTrue("")).ContainerWaiting("worker", "ErrImagePull", `failed to pull image "mpi:nope": not found`).Obj(),
			want: []string{`container worker of pod lat-r0-worker-1 is waiting: ErrImagePull (failed to pull image "mpi:nope": not found)`},
		},
		{
			name: "ContainerCreating without a message",
			pod:  pending().ContainerWaiting("worker", "ContainerCreating", "").Obj(),
			want: []string{"container worker of pod lat-r0-worker-1 is waiting: ContainerCreating"},
		},
		{
			name: "PodInitializing is not news; init containers come first",
			pod: pending().
				ContainerWaiting("worker", "PodInitializing", "").
				InitContainerWaiting("sysctl", "CreateContainerConfigError", `configmap "tuning" not found`).
				ContainerRunning("sidecar").
				ContainerWaiting("exporter", "", "no reason").Obj(),
			want: []string{`container sysctl of pod lat-r0-worker-1 is waiting: CreateContainerConfigError (configmap "tuning" not found)`},
		},
		{
			name: "scheduling first, then containers",
			pod: pending().
				ContainerWaiting("worker", "ImagePullBackOff", "Back-off pulling image").
				Unschedulable("persistentvolumeclaim \"scratch\" not found").Obj(),
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
		if got := NodeOf(wrappers.MakePod("", "").NodeName(tt.node).Obj()); got != tt.want {
			t.Errorf("NodeOf(node %q) = %q, want %q", tt.node, got, tt.want)
		}
	}
}
