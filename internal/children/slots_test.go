package children

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/test/wrappers"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// job is a Job created at t0.
func job(name string) *wrappers.JobWrapper {
	return wrappers.MakeJob(name, "").CreationTimestamp(t0)
}

// slotPod is a pod on node-a in phase ph.
func slotPod(name string, ph corev1.PodPhase) *wrappers.PodWrapper {
	return wrappers.MakePod(name, "").NodeName("node-a").Phase(ph)
}

// slotsObserved is the comparable part of an Observation.
type slotsObserved struct {
	Phase     Phase
	Why       string
	GoneJob   string
	Failed    string
	Container string
	ExitCode  int32
	Finished  []string
}

func summarize(o Observation) slotsObserved {
	s := slotsObserved{Phase: o.Phase, Why: o.Why, GoneJob: o.GoneJob, Container: o.Container, ExitCode: o.ExitCode}
	if o.Failed != nil {
		s.Failed = o.Failed.Name
	}
	for _, p := range o.Finished {
		s.Finished = append(s.Finished, p.Name)
	}
	return s
}

func TestObserve(t *testing.T) {
	complete := func(name string) *batchv1.Job { return job(name).Condition(batchv1.JobComplete, "", "").Obj() }
	failed := func(name string) *batchv1.Job {
		return job(name).Condition(batchv1.JobFailed, "BackoffLimitExceeded", "").Obj()
	}
	pending := slotPod("p0", corev1.PodPending).Obj()
	for _, tc := range []struct {
		name  string
		slots []SlotRun
		want  slotsObserved
	}{
		{
			name:  "no pod yet",
			slots: []SlotRun{{Job: job("j0").Obj()}},
			want:  slotsObserved{Phase: PhaseStarting, Why: "Job j0 has no pod yet"},
		},
		{
			name: "one slot runs, the other waits",
			slots: []SlotRun{
				{Job: job("j0").Obj(), Pods: []*corev1.Pod{slotPod("p0", corev1.PodRunning).Obj()}},
				{Job: job("j1").Obj(), Pods: []*corev1.Pod{slotPod("p1", corev1.PodPending).Obj()}},
			},
			want: slotsObserved{Phase: PhaseStarting, Why: "the pod of Job j1 is pending"},
		},
		{
			name: "every slot runs or is done",
			slots: []SlotRun{
				{Job: complete("j0"), Pods: []*corev1.Pod{slotPod("p0", corev1.PodSucceeded).Obj()}},
				{Job: job("j1").Obj(), Pods: []*corev1.Pod{slotPod("p1", corev1.PodRunning).Obj()}},
			},
			want: slotsObserved{Phase: PhaseRunning, Finished: []string{"p0"}},
		},
		{
			name: "every Job complete",
			slots: []SlotRun{
				{Job: complete("j0"), Pods: []*corev1.Pod{slotPod("p0", corev1.PodSucceeded).Obj()}},
				{Job: complete("j1"), Pods: []*corev1.Pod{slotPod("p1", corev1.PodSucceeded).Obj()}},
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
			want:  slotsObserved{Phase: PhaseLost, Why: "Job j0 failed and its pod is gone", GoneJob: "j0"},
		},
		{
			// kubectl delete pod: killed (137), not a tool failure, and
			// said as the API says it.
			name: "deleted through the API",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				slotPod("p0", corev1.PodFailed).Deleted(time.Date(2026, 11, 28, 12, 0, 5, 0, time.UTC), 30).ContainerTerminated("fio", 137).Obj(),
			}}},
			want: slotsObserved{Phase: PhaseLost, Failed: "p0",
				Why: "pod p0 on node node-a was deleted through the API at 2026-11-28T12:00:05Z (not evicted, not lost with its node): by a person or a controller"},
		},
		{
			name: "evicted",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				slotPod("p0", corev1.PodFailed).Reason("Evicted", "The node was low on resource: ephemeral-storage.").ContainerTerminated("fio", 137).Obj(),
			}}},
			want: slotsObserved{Phase: PhaseLost, Failed: "p0",
				Why: "pod p0 on node node-a was stopped by the cluster (Evicted: The node was low on resource: ephemeral-storage.)"},
		},
		{
			name: "preempted: a DisruptionTarget pod is not the tool's failure",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				slotPod("p0", corev1.PodFailed).Condition(corev1.PodCondition{
					Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler",
				}).ContainerTerminated("fio", 143).Obj(),
			}}},
			want: slotsObserved{Phase: PhaseLost, Failed: "p0", Why: "pod p0 on node node-a was stopped by the cluster (PreemptionByScheduler)"},
		},
		{
			// What the taint eviction controller leaves of a pod whose node's
			// kubelet stopped: still Running, marked, being deleted.
			name: "evicted from a lost node: the pod never ends, the Job is a FailureTarget",
			slots: []SlotRun{{Job: job("j0").Condition(batchv1.JobFailureTarget, "BackoffLimitExceeded", "Job has reached the specified backoff limit").Obj(), Pods: []*corev1.Pod{
				slotPod("p0", corev1.PodRunning).Condition(corev1.PodCondition{
					Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByTaintManager",
					Message: "Taint manager: deleting due to NoExecute taint",
				}).Obj(),
			}}},
			want: slotsObserved{Phase: PhaseLost, Failed: "p0",
				Why: "pod p0 on node node-a was stopped by the cluster (DeletionByTaintManager: Taint manager: deleting due to NoExecute taint)"},
		},
		{
			name: "tool exited non-zero",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				slotPod("p0", corev1.PodFailed).ContainerTerminated("fio", 1).Obj(),
			}}},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p0", Container: "fio", ExitCode: 1},
		},
		{
			name: "init containers fail first",
			slots: []SlotRun{{Job: failed("j0"), Pods: []*corev1.Pod{
				slotPod("p0", corev1.PodFailed).InitContainerTerminated("write", 0).InitContainerTerminated("read", 2).ContainerTerminated("last", 3).Obj(),
			}}},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p0", Container: "read", ExitCode: 2},
		},
		{
			name: "a tool failure outranks a lost slot before it",
			slots: []SlotRun{
				{Job: failed("j0")},
				{Job: failed("j1"), Pods: []*corev1.Pod{slotPod("p1", corev1.PodFailed).ContainerTerminated("fio", 1).Obj()}},
			},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p1", Container: "fio", ExitCode: 1,
				Why: "Job j0 failed and its pod is gone"},
		},
		{
			name: "a lost slot after a tool failure does not hide it",
			slots: []SlotRun{
				{Job: failed("j0"), Pods: []*corev1.Pod{slotPod("p0", corev1.PodFailed).ContainerTerminated("fio", 1).Obj()}},
				{Job: failed("j1")},
			},
			want: slotsObserved{Phase: PhaseToolFailed, Failed: "p0", Container: "fio", ExitCode: 1},
		},
		{
			name: "Job deadline",
			slots: []SlotRun{{Job: job("j0").Condition(batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline").Obj(),
				Pods: []*corev1.Pod{slotPod("p0", corev1.PodFailed).ContainerTerminated("fio", 137).Obj()}}},
			want: slotsObserved{Phase: PhaseDeadline, Why: "Job j0: Job was active longer than specified deadline"},
		},
		{
			name: "a Job deadline outranks a lost slot",
			slots: []SlotRun{
				{Job: complete("j0")},
				{Job: job("j1").Condition(batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, "late").Obj()},
				{Job: job("j2").Obj(), Pods: []*corev1.Pod{pending}},
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
	j0, j1 := job("j0").Obj(), job("j1").CreationTimestamp(t0.Add(time.Minute)).Obj()
	running := []SlotRun{
		{Job: j0, Pods: []*corev1.Pod{slotPod("p0", corev1.PodRunning).StartTime(t0.Add(3 * time.Minute)).Obj()}},
		{Job: j1, Pods: []*corev1.Pod{slotPod("p1", corev1.PodRunning).StartTime(t0.Add(2 * time.Minute)).Obj()}},
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
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
		want []string
	}{
		{"no pod", nil, []string{"Job j0 has no pod yet"}},
		{"unschedulable", []*corev1.Pod{slotPod("p0", corev1.PodPending).Unschedulable("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.").Obj()},
			[]string{"pod p0 is not scheduled: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."}},
		{"image pull and PodInitializing", []*corev1.Pod{slotPod("p0", corev1.PodPending).
			InitContainerWaiting("drop-caches", "ErrImagePull", `pull access denied for "fio"`).
			ContainerWaiting("fio", "PodInitializing", "").ContainerWaiting("other", "ContainerCreating", "").Obj()},
			[]string{
				`container drop-caches of pod p0 is waiting: ErrImagePull (pull access denied for "fio")`,
				"container other of pod p0 is waiting: ContainerCreating",
			}},
		{"nothing said yet", []*corev1.Pod{slotPod("p0", corev1.PodPending).Obj()}, []string{"the pod of Job j0 is pending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PendingReasons(SlotRun{Job: job("j0").Obj(), Pods: tc.pods})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pendingReasons (-want +got):\n%s", diff)
			}
		})
	}
}
