package children

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Job fixtures: created at t0, with one true condition or none.
func activeJob(name string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0)}}
}

func jobWith(name string, typ batchv1.JobConditionType, reason, msg string) *batchv1.Job {
	j := activeJob(name)
	j.Status.Conditions = []batchv1.JobCondition{{Type: typ, Status: corev1.ConditionTrue, Reason: reason, Message: msg}}
	return j
}

// podFixture is a pod of a phase; mods fill in its status.
func podFixture(name string, ph corev1.PodPhase, mods ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: "node-a"}}
	p.Status.Phase = ph
	for _, m := range mods {
		m(p)
	}
	return p
}

func startedAt(m int) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.StartTime = ptr.To(metav1.NewTime(t0.Add(time.Duration(m) * time.Minute)))
	}
}

func exited(name string, code int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
}

func containers(init []corev1.ContainerStatus, main ...corev1.ContainerStatus) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.InitContainerStatuses, p.Status.ContainerStatuses = init, main }
}

func mainContainers(cs ...corev1.ContainerStatus) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.ContainerStatuses = cs }
}

func evicted(p *corev1.Pod) {
	p.Status.Reason, p.Status.Message = "Evicted", "The node was low on resource: ephemeral-storage."
}

func disruptionTarget(p *corev1.Pod) {
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
		Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler",
	})
}

// slotsObserved is the comparable part of an Observation.
type slotsObserved struct {
	Phase     Phase
	Why       string
	Failed    string
	Container string
	ExitCode  int32
	Finished  []string
}

func summarize(o Observation) slotsObserved {
	s := slotsObserved{Phase: o.Phase, Why: o.Why, Container: o.Container, ExitCode: o.ExitCode}
	if o.Failed != nil {
		s.Failed = o.Failed.Name
	}
	for _, p := range o.Finished {
		s.Finished = append(s.Finished, p.Name)
	}
	return s
}

func TestObserve(t *testing.T) {
	complete := func(name string) *batchv1.Job { return jobWith(name, batchv1.JobComplete, "", "") }
	failed := func(name string) *batchv1.Job { return jobWith(name, batchv1.JobFailed, "BackoffLimitExceeded", "") }
	pending := podFixture("p0", corev1.PodPending)
	for _, tc := range []struct {
		name  string
		slots []SlotRun
		want  slotsObserved
	}{
		{
			name:  "no pod yet",
			slots: []SlotRun{{Job: activeJob("j0")}},
			want:  slotsObserved{Phase: PhaseStarting, Why: "Job j0 has no pod yet"},
		},
		{
			name: "one slot runs, the other waits",
			slots: []SlotRun{
				{Job: activeJob("j0"), Pods: []*corev1.Pod{podFixture("p0", corev1.PodRunning)}},
				{Job: activeJob("j1"), Pods: []*corev1.Pod{podFixture("p1", corev1.PodPending)}},
			},
			want: slotsObserved{Phase: PhaseStarting, Why: "the pod of Job j1 is pending"},
		},
		{
			name: "every slot runs or is done",
			slots: []SlotRun{
				{Job: complete("j0"), Pods: []*corev1.Pod{podFixture("p0", corev1.PodSucceeded)}},
				{Job: activeJob("j1"), Pods: []*corev1.Pod{podFixture("p1", corev1.PodRunning)}},
			},
			want: slotsObserved{Phase: PhaseRunning, Finished: []string{"p0"}},
		},
		{
			name: "every Job complete",
			slots: []SlotRun{
				{Job: complete("j0"), Pods: []*corev1.Pod{podFixture("p0", corev1.PodSucceeded)}},
				{Job: complete("j1"), Pods: []*corev1.Pod{podFixture("p1", corev1.PodSucceeded)}},
			},
			want: slotsObserved{Phase: PhaseSucceeded, Finished: []string{"p0", "p1"}},
		},
		{
			name:  "complete but the pod is gone",
			slots: []SlotRun{{Job: complete("j0")}},
			want:  slotsObserved{Phase: PhaseLost, Why: "Job j0 completed but its pod is gone, and with it the output"},
		},
		{
			name:  "failed and the pod is gone",
			slots: []SlotRun{{Job: failed("j0")}},
			want:  slotsObserved{Phase: PhaseLost, Why: "Job j0 failed and its pod is gone (deleted with its node?)"},
		},
		{
			name: "evicted",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				podFixture("p0", corev1.PodFailed, evicted, mainContainers(exited("fio", 137))),
			}}},
			want: slotsObserved{Phase: PhaseLost, Failed: "p0",
				Why: "pod p0 on node node-a was stopped by the cluster (Evicted: The node was low on resource: ephemeral-storage.)"},
		},
		{
			name: "preempted: a DisruptionTarget pod is not the tool's failure",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				podFixture("p0", corev1.PodFailed, disruptionTarget, mainContainers(exited("fio", 143))),
			}}},
			want: slotsObserved{Phase: PhaseLost, Failed: "p0", Why: "pod p0 on node node-a was stopped by the cluster (Disrupted)"},
		},
		{
			name: "tool exited non-zero",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				podFixture("p0", corev1.PodFailed, mainContainers(exited("fio", 1))),
			}}},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p0", Container: "fio", ExitCode: 1},
		},
		{
			name: "init containers fail first",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				podFixture("p0", corev1.PodFailed, containers(
					[]corev1.ContainerStatus{exited("write", 0), exited("read", 2)}, exited("last", 3))),
			}}},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p0", Container: "read", ExitCode: 2},
		},
		{
			name: "a tool failure outranks a lost slot before it",
			slots: []SlotRun{
				{Job: failed("j0")},
				{Job: failed("j1"), Pods: []*corev1.Pod{podFixture("p1", corev1.PodFailed, mainContainers(exited("fio", 1)))}},
			},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p1", Container: "fio", ExitCode: 1,
				Why: "Job j0 failed and its pod is gone (deleted with its node?)"},
		},
		{
			name: "a lost slot after a tool failure does not hide it",
			slots: []SlotRun{
				{Job: failed("j0"), Pods: []*corev1.Pod{podFixture("p0", corev1.PodFailed, mainContainers(exited("fio", 1)))}},
				{Job: failed("j1")},
			},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p0", Container: "fio", ExitCode: 1},
		},
		{
			name: "Job deadline",
			slots: []SlotRun{{Job: jobWith("j0", batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline"),
				Pods: []*corev1.Pod{podFixture("p0", corev1.PodFailed, mainContainers(exited("fio", 137)))}}},
			want: slotsObserved{Phase: PhaseDeadline, Why: "Job j0: Job was active longer than specified deadline"},
		},
		{
			name: "a Job deadline outranks a lost slot",
			slots: []SlotRun{
				{Job: complete("j0")},
				{Job: jobWith("j1", batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, "late")},
				{Job: activeJob("j2"), Pods: []*corev1.Pod{pending}},
			},
			want: slotsObserved{Phase: PhaseDeadline, Why: "Job j1: late"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summarize(ObserveSlots(tc.slots))); diff != "" {
				t.Errorf("observe (-want +got):\n%s", diff)
			}
		})
	}
}

// created is the latest Job creation; started the latest pod start, once all run.
func TestObserveTimes(t *testing.T) {
	j0, j1 := activeJob("j0"), activeJob("j1")
	j1.CreationTimestamp = metav1.NewTime(t0.Add(time.Minute))
	running := []SlotRun{
		{Job: j0, Pods: []*corev1.Pod{podFixture("p0", corev1.PodRunning, startedAt(3))}},
		{Job: j1, Pods: []*corev1.Pod{podFixture("p1", corev1.PodRunning, startedAt(2))}},
	}
	o := ObserveSlots(running)
	if !o.Created.Equal(t0.Add(time.Minute)) || !o.Started.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("created, started = %v, %v; want t0+1m, t0+3m", o.Created, o.Started)
	}
	running[1].Pods[0].Status.Phase = corev1.PodPending
	if o := ObserveSlots(running); !o.Started.IsZero() {
		t.Errorf("started = %v with a pod pending, want zero", o.Started)
	}
}

func TestPendingReasons(t *testing.T) {
	unschedulable := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
		}}
	}
	waiting := func(name, reason, msg string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}
	}
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want []string
	}{
		{"no pod", nil, []string{"Job j0 has no pod yet"}},
		{"unschedulable", []*corev1.Pod{podFixture("p0", corev1.PodPending, unschedulable)},
			[]string{"pod p0 is not scheduled: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}},
		{"image pull and PodInitializing", []*corev1.Pod{podFixture("p0", corev1.PodPending, containers(
			[]corev1.ContainerStatus{waiting("drop-caches", "ErrImagePull", `pull access denied for "fio"`)},
			waiting("fio", "PodInitializing", ""), waiting("other", "ContainerCreating", "")))},
			[]string{
				`container drop-caches of pod p0 is waiting: ErrImagePull (pull access denied for "fio")`,
				"container other of pod p0 is waiting: ContainerCreating",
			}},
		{"nothing said yet", []*corev1.Pod{podFixture("p0", corev1.PodPending)}, []string{"the pod of Job j0 is pending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PendingReasons(SlotRun{Job: activeJob("j0"), Pods: tc.pods})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pendingReasons (-want +got):\n%s", diff)
			}
		})
	}
}
