package mpibenchmark

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/test/wrappers"
)

var (
	jobCreated = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	jobStarted = time.Date(2025, 3, 4, 10, 1, 30, 0, time.UTC)
)

// mpiJob is MPIJob lat-r0 with two workers, created at jobCreated, with the
// given conditions.
func mpiJob(conds ...mpiv2.JobCondition) *mpiv2.MPIJob {
	return wrappers.MakeMPIJob("lat-r0", "hpc").CreationTimestamp(jobCreated).Workers(2).Conditions(conds...).Obj()
}

func cond(typ mpiv2.JobConditionType, status corev1.ConditionStatus, reason, message string) mpiv2.JobCondition {
	return mpiv2.JobCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(jobStarted)}
}

var (
	running   = cond(mpiv2.JobRunning, corev1.ConditionTrue, "MPIJobRunning", "MPIJob hpc/lat-r0 is running.")
	succeeded = cond(mpiv2.JobSucceeded, corev1.ConditionTrue, "MPIJobSucceeded", "MPIJob hpc/lat-r0 successfully completed.")
)

func failed(reason, message string) mpiv2.JobCondition {
	return cond(mpiv2.JobFailed, corev1.ConditionTrue, reason, message)
}

// pod is a pod of MPIJob lat-r0 with a role label and a phase.
func pod(name, role string, phase corev1.PodPhase) *wrappers.PodWrapper {
	return wrappers.MakePod(name, "hpc").Label(roleLabel, role).Phase(phase)
}

func TestObserve(t *testing.T) {
	launcherOK := pod("lat-r0-launcher-x7k2p", roleLauncher, corev1.PodSucceeded).Obj()
	launcherFailed := pod("lat-r0-launcher-x7k2p", roleLauncher, corev1.PodFailed).Obj()
	launcherRunning := pod("lat-r0-launcher-x7k2p", roleLauncher, corev1.PodRunning).Obj()
	launcherLost := pod("lat-r0-launcher-x7k2p", roleLauncher, corev1.PodRunning).NodeName("node-b").Deleted(jobStarted.Add(time.Minute), 10).Condition(corev1.PodCondition{
		Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByTaintManager", Message: "Taint manager: deleting due to NoExecute taint",
	}).Obj()
	worker0 := pod("lat-r0-worker-0", roleWorker, corev1.PodRunning).Obj()
	worker1 := pod("lat-r0-worker-1", roleWorker, corev1.PodRunning).Obj()
	tests := []struct {
		name string
		job  *mpiv2.MPIJob
		pods []*corev1.Pod
		want observation
	}{
		{
			name: "new MPIJob without pods",
			job:  mpiJob(),
			want: observation{phase: children.PhaseStarting, created: jobCreated, unmade: true, why: "0 of 2 workers running, launcher not created yet"},
		},
		{
			name: "a worker cannot be scheduled, another pulls its image",
			job:  mpiJob(),
			pods: []*corev1.Pod{
				pod("lat-r0-worker-0", roleWorker, corev1.PodPending).Unschedulable("0/3 nodes are available: 3 Insufficient cpu.").Obj(),
				pod("lat-r0-worker-1", roleWorker, corev1.PodPending).ContainerWaiting("worker", "ErrImagePull", `pull access denied for "mpi:bad"`).Obj(),
			},
			want: observation{phase: children.PhaseStarting, created: jobCreated, unmade: true, why: "0 of 2 workers running, launcher not created yet; " +
				"pod lat-r0-worker-0 is not scheduled: 0/3 nodes are available: 3 Insufficient cpu.; " +
				`container worker of pod lat-r0-worker-1 is waiting: ErrImagePull (pull access denied for "mpi:bad")`},
		},
		{
			name: "one worker running, one pending",
			job:  mpiJob(),
			pods: []*corev1.Pod{worker0, pod("lat-r0-worker-1", roleWorker, corev1.PodPending).ContainerWaiting("worker", "ContainerCreating", "").Obj()},
			want: observation{phase: children.PhaseStarting, created: jobCreated, unmade: true, why: "1 of 2 workers running, launcher not created yet; " +
				"container worker of pod lat-r0-worker-1 is waiting: ContainerCreating"},
		},
		{
			name: "workers ready, the launcher pending",
			job:  mpiJob(),
			pods: []*corev1.Pod{worker0, worker1, pod("lat-r0-launcher-x7k2p", roleLauncher, corev1.PodPending).ContainerWaiting("launcher", "ImagePullBackOff", "Back-off pulling image").Obj()},
			want: observation{phase: children.PhaseStarting, created: jobCreated, why: "2 of 2 workers running; " +
				"container launcher of pod lat-r0-launcher-x7k2p is waiting: ImagePullBackOff (Back-off pulling image)"},
		},
		{
			name: "pods of other roles and without a role are not counted",
			job:  mpiJob(),
			pods: []*corev1.Pod{pod("other", "tuner", corev1.PodRunning).Obj(), wrappers.MakePod("bare", "").Phase(corev1.PodRunning).Obj()},
			want: observation{phase: children.PhaseStarting, created: jobCreated, unmade: true, why: "0 of 2 workers running, launcher not created yet"},
		},
		{
			name: "Running False is still starting",
			job:  mpiJob(cond(mpiv2.JobRunning, corev1.ConditionFalse, "MPIJobSuspended", "suspended")),
			pods: []*corev1.Pod{worker0, worker1},
			want: observation{phase: children.PhaseStarting, created: jobCreated, unmade: true, why: "2 of 2 workers running, launcher not created yet"},
		},
		{
			name: "running since the Running condition's transition",
			job:  mpiJob(cond(mpiv2.JobCreated, corev1.ConditionTrue, "MPIJobCreated", ""), running),
			pods: []*corev1.Pod{worker0, worker1, launcherRunning},
			want: observation{phase: children.PhaseRunning, created: jobCreated, started: jobStarted},
		},
		{
			name: "succeeded with its launcher pod",
			job:  mpiJob(running, succeeded),
			pods: []*corev1.Pod{worker0, worker1, launcherOK},
			want: observation{phase: children.PhaseSucceeded, created: jobCreated, started: jobStarted, launcher: launcherOK},
		},
		{
			name: "succeeded: the Succeeded launcher pod, not a failed one",
			job:  mpiJob(succeeded),
			pods: []*corev1.Pod{pod("lat-r0-launcher-old", roleLauncher, corev1.PodFailed).Obj(), launcherOK},
			want: observation{phase: children.PhaseSucceeded, created: jobCreated, launcher: launcherOK},
		},
		{
			name: "succeeded without a launcher pod: the output is lost",
			job:  mpiJob(running, succeeded),
			pods: []*corev1.Pod{worker0, worker1},
			want: observation{phase: children.PhaseLost, created: jobCreated, started: jobStarted,
				why: "MPIJob lat-r0 succeeded but its launcher pod is gone, and with it the output"},
		},
		{
			name: "succeeded with only a failed launcher pod: lost",
			job:  mpiJob(succeeded),
			pods: []*corev1.Pod{launcherFailed},
			want: observation{phase: children.PhaseLost, created: jobCreated,
				why: "MPIJob lat-r0 succeeded but its launcher pod is gone, and with it the output"},
		},
		{
			name: "workers evicted: lost",
			job:  mpiJob(running, failed("MPIJobEvicted", "1/2 workers are evicted")),
			pods: []*corev1.Pod{worker0, pod("lat-r0-worker-1", roleWorker, corev1.PodFailed).Obj(), launcherRunning},
			want: observation{phase: children.PhaseLost, created: jobCreated, started: jobStarted,
				why: "MPIJob lat-r0 failed (MPIJobEvicted): 1/2 workers are evicted"},
		},
		{
			name: "launcher evicted: lost, with the launcher pod",
			job:  mpiJob(running, failed("BackoffLimitExceeded/Evicted", "Job has reached the specified backoff limit: The node was low on resource: memory.")),
			pods: []*corev1.Pod{launcherFailed},
			want: observation{phase: children.PhaseLost, created: jobCreated, started: jobStarted, launcher: launcherFailed,
				why: "MPIJob lat-r0 failed (BackoffLimitExceeded/Evicted): Job has reached the specified backoff limit: The node was low on resource: memory."},
		},
		{
			name: "launcher preempted: lost",
			job:  mpiJob(failed("BackoffLimitExceeded/Preempting", "preempted")),
			want: observation{phase: children.PhaseLost, created: jobCreated, why: "MPIJob lat-r0 failed (BackoffLimitExceeded/Preempting): preempted"},
		},
		{
			name: "the MPIJob's deadline",
			job:  mpiJob(running, failed("DeadlineExceeded", "Job was active longer than specified deadline")),
			pods: []*corev1.Pod{launcherFailed},
			want: observation{phase: children.PhaseDeadline, created: jobCreated, started: jobStarted, launcher: launcherFailed,
				why: "MPIJob lat-r0 failed (DeadlineExceeded): Job was active longer than specified deadline"},
		},
		{
			name: "the MPI run failed",
			job:  mpiJob(running, failed("BackoffLimitExceeded/Error", "Job has reached the specified backoff limit: ")),
			pods: []*corev1.Pod{worker0, worker1, launcherFailed},
			want: observation{phase: children.PhaseToolFailed, created: jobCreated, started: jobStarted, launcher: launcherFailed,
				why: "MPIJob lat-r0 failed (BackoffLimitExceeded/Error): Job has reached the specified backoff limit: "},
		},
		{
			name: "failed without a failed launcher pod",
			job:  mpiJob(failed("MPIJobFailed", "MPIJob hpc/lat-r0 has failed")),
			pods: []*corev1.Pod{launcherRunning},
			want: observation{phase: children.PhaseToolFailed, created: jobCreated, why: "MPIJob lat-r0 failed (MPIJobFailed): MPIJob hpc/lat-r0 has failed"},
		},
		{
			// The launcher's node stopped answering: the taint eviction
			// controller marked and deleted the pod, which no kubelet ends; the
			// launcher Job is only a FailureTarget, the MPIJob still Running.
			name: "launcher evicted from a lost node: lost while the MPIJob runs",
			job:  mpiJob(running),
			pods: []*corev1.Pod{worker0, worker1, launcherLost},
			want: observation{phase: children.PhaseLost, created: jobCreated, started: jobStarted, launcher: launcherLost,
				why: "launcher pod lat-r0-launcher-x7k2p on node node-b was stopped by the cluster (DeletionByTaintManager: Taint manager: deleting due to NoExecute taint)"},
		},
		{
			name: "Failed False is not a failure",
			job:  mpiJob(running, cond(mpiv2.JobFailed, corev1.ConditionFalse, "MPIJobEvicted", "")),
			want: observation{phase: children.PhaseRunning, created: jobCreated, started: jobStarted},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := observe(tt.job, tt.pods)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(observation{})); diff != "" {
				t.Errorf("observe (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		name       string
		start, run *metav1.Duration
		wantStart  time.Duration
		wantRun    time.Duration
	}{
		{name: "defaults", wantStart: 15 * time.Minute, wantRun: 2 * time.Hour},
		{name: "set", start: &metav1.Duration{Duration: time.Minute}, run: &metav1.Duration{Duration: 3 * time.Hour}, wantStart: time.Minute, wantRun: 3 * time.Hour},
		{name: "zero is the default", start: &metav1.Duration{}, run: &metav1.Duration{}, wantStart: 15 * time.Minute, wantRun: 2 * time.Hour},
		{name: "negative is the default", start: &metav1.Duration{Duration: -time.Second}, run: &metav1.Duration{Duration: -time.Second}, wantStart: 15 * time.Minute, wantRun: 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := latBench().Obj()
			b.Spec.Timeouts.Start, b.Spec.Timeouts.Run = tt.start, tt.run
			if got := startTimeout(b); got != tt.wantStart {
				t.Errorf("startTimeout = %v, want %v", got, tt.wantStart)
			}
			if got := runTimeout(b); got != tt.wantRun {
				t.Errorf("runTimeout = %v, want %v", got, tt.wantRun)
			}
		})
	}
}

// A worker that went away while the launcher ran makes the failure a lost
// repetition (retried per maxRetries); the MPI Operator's own clean-up after
// the failure does not.
func TestObserveLostWorker(t *testing.T) {
	launched := jobStarted.Add(5 * time.Second)
	failedAt := launched.Add(40 * time.Second)
	fail := cond(mpiv2.JobFailed, corev1.ConditionTrue, "BackoffLimitExceeded/Error", "Job has reached the specified backoff limit: ")
	fail.LastTransitionTime = metav1.NewTime(failedAt)
	launcher := pod("lat-r0-launcher-x7k2p", roleLauncher, corev1.PodFailed).StartTime(launched).Obj()
	worker := func(name string) *wrappers.PodWrapper {
		return pod(name, roleWorker, corev1.PodRunning).CreationTimestamp(jobStarted.Add(-10 * time.Second))
	}
	tests := []struct {
		name    string
		workers []*corev1.Pod
		lost    string // "" for a plain failure
	}{
		{"all workers there: the tool failed", []*corev1.Pod{worker("lat-r0-worker-0").Obj(), worker("lat-r0-worker-1").Obj()}, ""},
		{"a worker deleted mid-run (30 s grace)", []*corev1.Pod{worker("lat-r0-worker-0").Obj(), worker("lat-r0-worker-1").Deleted(launched.Add(20*time.Second), 30).Obj()},
			"worker pod lat-r0-worker-1 was deleted while the run ran"},
		{"the operator's clean-up after the failure", []*corev1.Pod{worker("lat-r0-worker-0").Deleted(failedAt.Add(time.Second), 30).Obj(), worker("lat-r0-worker-1").Deleted(failedAt.Add(time.Second), 30).Obj()}, ""},
		{"a replacement worker", []*corev1.Pod{worker("lat-r0-worker-0").Obj(), worker("lat-r0-worker-1").CreationTimestamp(launched.Add(21 * time.Second)).Obj()},
			"worker pod lat-r0-worker-1 was replaced while the run ran"},
		{"a disruption target", []*corev1.Pod{worker("lat-r0-worker-0").Condition(corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: metav1.NewTime(launched.Add(time.Second))}).Obj()},
			"worker pod lat-r0-worker-0 was disrupted while the run ran (EvictionByEvictionAPI: Eviction API: evicting)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := observe(mpiJob(running, fail), append(tt.workers, launcher))
			if tt.lost == "" {
				if got.phase != children.PhaseToolFailed {
					t.Errorf("phase %v (%s), want failed", got.phase, got.why)
				}
				return
			}
			if got.phase != children.PhaseLost || !strings.Contains(got.why, "MPIJob lat-r0 failed after "+tt.lost) {
				t.Errorf("phase %v, why %q; want lost: %q", got.phase, got.why, tt.lost)
			}
		})
	}
}
