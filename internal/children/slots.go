package children

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/benchwright/benchwright/internal/podlogs"
)

// The node slots of an attempt: benchmarks that run one Job per node and
// repetition (StorageBenchmark, NetworkBenchmark) observe them the same way.

// SlotRun is one node slot's Job and its pods.
type SlotRun struct {
	Job  *batchv1.Job
	Pods []*corev1.Pod
}

// Observation is what the Jobs and pods of one attempt say.
type Observation struct {
	Phase Phase
	// Finished are the pods whose logs hold the result, one per slot
	// (PhaseSucceeded).
	Finished []*corev1.Pod
	// Failed, Container and ExitCode say which pod failed and how
	// (PhaseToolFailed, PhaseLost).
	Failed    *corev1.Pod
	Container string
	ExitCode  int32
	// Why explains PhaseLost, PhaseDeadline and PhaseStarting in words.
	Why string
	// Unmade marks a slot whose Job has made no pod yet.
	Unmade bool
	// GoneJob names a failed Job whose pod is gone (PhaseLost): its pods'
	// events may still say what took it (see benchrun).
	GoneJob string
	// Created is when the attempt's Jobs were created; Started is when its
	// last pod started running (zero until all do).
	Created, Started time.Time
}

// ObserveSlots classifies an attempt from its slots' Jobs and pods.
func ObserveSlots(slots []SlotRun) Observation {
	o := Observation{Phase: PhaseSucceeded}
	var waiting []string
	allStarted := true
	for _, s := range slots {
		if c := s.Job.CreationTimestamp.Time; o.Created.IsZero() || c.After(o.Created) {
			o.Created = c
		}
		switch {
		case JobCondition(s.Job, batchv1.JobComplete):
			pod := podlogs.PodInPhase(s.Pods, corev1.PodSucceeded)
			if pod == nil {
				o.lose(fmt.Sprintf("Job %s completed but its pod is gone, and with it the output", s.Job.Name))
				continue
			}
			o.Finished = append(o.Finished, pod)
			o.noteStart(pod)
		case JobFailure(s.Job) != nil:
			o.classifyFailure(s)
		default:
			// A pod that already ended counts as started: its Job's condition
			// follows shortly.
			running := cmp.Or(podlogs.PodInPhase(s.Pods, corev1.PodRunning), podlogs.PodInPhase(s.Pods, corev1.PodSucceeded), podlogs.PodInPhase(s.Pods, corev1.PodFailed))
			if running == nil {
				allStarted = false
				o.Unmade = o.Unmade || len(s.Pods) == 0
				waiting = append(waiting, PendingReasons(s)...)
			} else {
				o.noteStart(running)
			}
			if o.Phase == PhaseSucceeded {
				o.Phase = PhaseRunning
			}
		}
	}
	if o.Phase != PhaseLost {
		o.GoneJob = "" // a worse outcome came after
	}
	if o.Phase == PhaseRunning && !allStarted {
		o.Phase, o.Why = PhaseStarting, strings.Join(waiting, "; ")
	}
	if !allStarted {
		o.Started = time.Time{}
	}
	return o
}

// noteStart keeps the latest start of the attempt's Pods: the run timeout
// counts from when every node slot runs.
func (o *Observation) noteStart(p *corev1.Pod) {
	if p.Status.StartTime != nil && p.Status.StartTime.After(o.Started) {
		o.Started = p.Status.StartTime.Time
	}
}

// lose records a lost pod, unless a worse outcome is already known, and
// says whether it did.
func (o *Observation) lose(why string) bool {
	if o.Phase == PhaseToolFailed || o.Phase == PhaseDeadline {
		return false
	}
	o.Phase, o.Why, o.GoneJob = PhaseLost, why, ""
	return true
}

// classifyFailure tells a tool's failure (its own result) from a pod the node
// or the cluster took away (worth a retry).
func (o *Observation) classifyFailure(s SlotRun) {
	if c := JobFailure(s.Job); c.Reason == batchv1.JobReasonDeadlineExceeded {
		if o.Phase != PhaseToolFailed {
			o.Phase, o.Why = PhaseDeadline, fmt.Sprintf("Job %s: %s", s.Job.Name, c.Message)
		}
		return
	}
	// A pod evicted from a node that stopped answering keeps its last phase:
	// no kubelet is left to end it.
	if pod := deletedPod(s.Pods); pod != nil {
		// Killed by its deletion, whatever its exit code says.
		o.Failed = pod
		o.lose(fmt.Sprintf("pod %s on node %s was deleted through the API at %s (not evicted, not lost with its node): by a person or a controller",
			pod.Name, podlogs.NodeOf(pod), deletionAsked(pod).Format(time.RFC3339)))
		return
	}
	pod := cmp.Or(podlogs.PodInPhase(s.Pods, corev1.PodFailed), disruptedPod(s.Pods))
	if pod == nil {
		if o.lose(fmt.Sprintf("Job %s failed and its pod is gone", s.Job.Name)) {
			o.GoneJob = s.Job.Name
		}
		return
	}
	if container, code, ok := failedContainer(pod); ok && !disrupted(pod) {
		o.Phase, o.Failed, o.Container, o.ExitCode = PhaseToolFailed, pod, container, code
		return
	}
	o.Failed = pod
	o.lose(fmt.Sprintf("pod %s on node %s was stopped by the cluster (%s)", pod.Name, podlogs.NodeOf(pod), WhyDisrupted(pod)))
}

// WhyDisrupted is the pod's reason and message, or its DisruptionTarget
// condition's (an eviction for a lost node sets only that).
func WhyDisrupted(p *corev1.Pod) string {
	reason, message := p.Status.Reason, p.Status.Message
	if reason == "" {
		reason = "Disrupted"
		if c := Disruption(p); c != nil {
			reason, message = cmp.Or(c.Reason, reason), c.Message
		}
	}
	if message != "" {
		return reason + ": " + message
	}
	return reason
}

// deletedPod is the first pod deleted through the API that the cluster did
// not mark for disruption (an eviction, a lost node, a preemption mark it).
func deletedPod(pods []*corev1.Pod) *corev1.Pod {
	for _, p := range pods {
		if p.DeletionTimestamp != nil && Disruption(p) == nil {
			return p
		}
	}
	return nil
}

// deletionAsked is when the pod's deletion was asked: its deletionTimestamp
// is the end of its grace period.
func deletionAsked(p *corev1.Pod) time.Time {
	t := p.DeletionTimestamp.UTC()
	if g := p.DeletionGracePeriodSeconds; g != nil {
		t = t.Add(-time.Duration(*g) * time.Second)
	}
	return t
}

// disruptedPod is the first pod the cluster marked for disruption.
func disruptedPod(pods []*corev1.Pod) *corev1.Pod {
	for _, p := range pods {
		if Disruption(p) != nil {
			return p
		}
	}
	return nil
}

// Disruption is the pod's DisruptionTarget condition, when True.
func Disruption(p *corev1.Pod) *corev1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// disrupted tells whether the cluster, not the tool, ended the pod: eviction,
// preemption, node shutdown or loss, or rejection at admission.
func disrupted(p *corev1.Pod) bool {
	return Disruption(p) != nil || p.Status.Reason != ""
}

// failedContainer is the first container that exited non-zero, init
// containers first (they run first).
func failedContainer(p *corev1.Pod) (string, int32, bool) {
	for _, statuses := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
				return cs.Name, t.ExitCode, true
			}
		}
	}
	return "", 0, false
}

// PendingReasons say why a slot's pod does not run yet, from what the
// scheduler and kubelet wrote on it.
func PendingReasons(s SlotRun) []string {
	if len(s.Pods) == 0 {
		return []string{fmt.Sprintf("Job %s has no pod yet", s.Job.Name)}
	}
	var out []string
	for _, p := range s.Pods {
		out = append(out, podlogs.WhyPending(p)...)
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("the pod of Job %s is pending", s.Job.Name))
	}
	return out
}

// JobCondition tells whether the Job has condition t, True.
func JobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	c := FindJobCondition(j, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

// JobFailure is the Job's Failed condition, or its FailureTarget: the Job
// controller (1.31 on) sets Failed only once every pod has ended, which a pod
// on a node that stopped answering never does. Nil while the Job has not
// failed.
func JobFailure(j *batchv1.Job) *batchv1.JobCondition {
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobFailureTarget} {
		if JobCondition(j, t) {
			return FindJobCondition(j, t)
		}
	}
	return nil
}

// FindJobCondition is the Job's condition of type t, nil without one.
func FindJobCondition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == t {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}
