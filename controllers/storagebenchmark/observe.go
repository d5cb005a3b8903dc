package storagebenchmark

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
)

func startTimeout(b *benchv1.StorageBenchmark) time.Duration {
	return benchrun.StartTimeout(b.Spec.Timeouts)
}

func runTimeout(b *benchv1.StorageBenchmark) time.Duration {
	return benchrun.RunTimeout(b.Spec.Timeouts)
}

// phase is where one attempt of a repetition stands, over all its node slots.
type phase int

const (
	// phaseStarting: some pod is not running yet (unscheduled, volumes
	// unbound, image pulling).
	phaseStarting phase = iota
	// phaseRunning: every pod runs or has finished.
	phaseRunning
	// phaseSucceeded: every Job completed; their pods' logs can be read.
	phaseSucceeded
	// phaseLost: a pod was evicted, preempted or lost with its node; the
	// attempt can be retried.
	phaseLost
	// phaseToolFailed: the tool exited non-zero; its failure is the result.
	phaseToolFailed
	// phaseDeadline: the Job's own deadline ended it (the manager was away).
	phaseDeadline
)

// slotRun is one node slot's Job and its pods.
type slotRun struct {
	job  *batchv1.Job
	pods []*corev1.Pod
}

// observation is what the Jobs and pods of one attempt say.
type observation struct {
	phase phase
	// finished are the pods whose logs hold the result, one per slot
	// (phaseSucceeded).
	finished []*corev1.Pod
	// failed, container and exitCode say which pod failed and how
	// (phaseToolFailed, phaseLost).
	failed    *corev1.Pod
	container string
	exitCode  int32
	// why explains phaseLost, phaseDeadline and phaseStarting in words.
	why string
	// created is when the attempt's Jobs were created; started is when its
	// last pod started running (zero until all do).
	created, started time.Time
}

// observe classifies an attempt from its slots' Jobs and pods.
func observe(slots []slotRun) observation {
	o := observation{phase: phaseSucceeded}
	var waiting []string
	allStarted := true
	for _, s := range slots {
		if c := s.job.CreationTimestamp.Time; o.created.IsZero() || c.After(o.created) {
			o.created = c
		}
		switch {
		case jobCondition(s.job, batchv1.JobComplete):
			pod := benchrun.PodInPhase(s.pods, corev1.PodSucceeded)
			if pod == nil {
				o.lose(fmt.Sprintf("Job %s completed but its pod is gone, and with it the output", s.job.Name))
				continue
			}
			o.finished = append(o.finished, pod)
			o.noteStart(pod)
		case jobCondition(s.job, batchv1.JobFailed):
			o.classifyFailure(s)
		default:
			// A pod that already ended counts as started: its Job's condition
			// follows shortly.
			running := cmp.Or(benchrun.PodInPhase(s.pods, corev1.PodRunning), benchrun.PodInPhase(s.pods, corev1.PodSucceeded), benchrun.PodInPhase(s.pods, corev1.PodFailed))
			if running == nil {
				allStarted = false
				waiting = append(waiting, pendingReasons(s)...)
			} else {
				o.noteStart(running)
			}
			if o.phase == phaseSucceeded {
				o.phase = phaseRunning
			}
		}
	}
	if o.phase == phaseRunning && !allStarted {
		o.phase, o.why = phaseStarting, strings.Join(waiting, "; ")
	}
	if !allStarted {
		o.started = time.Time{}
	}
	return o
}

// noteStart keeps the latest start of the attempt's pods: the run timeout
// counts from when every node slot runs.
func (o *observation) noteStart(p *corev1.Pod) {
	if p.Status.StartTime != nil && p.Status.StartTime.After(o.started) {
		o.started = p.Status.StartTime.Time
	}
}

// lose records a lost pod, unless a worse outcome is already known.
func (o *observation) lose(why string) {
	if o.phase != phaseToolFailed && o.phase != phaseDeadline {
		o.phase, o.why = phaseLost, why
	}
}

// classifyFailure tells a tool's failure (its own result) from a pod the node
// or the cluster took away (worth a retry).
func (o *observation) classifyFailure(s slotRun) {
	if c := findJobCondition(s.job, batchv1.JobFailed); c != nil && c.Reason == batchv1.JobReasonDeadlineExceeded {
		if o.phase != phaseToolFailed {
			o.phase, o.why = phaseDeadline, fmt.Sprintf("Job %s: %s", s.job.Name, c.Message)
		}
		return
	}
	pod := benchrun.PodInPhase(s.pods, corev1.PodFailed)
	if pod == nil {
		o.lose(fmt.Sprintf("Job %s failed and its pod is gone (deleted with its node?)", s.job.Name))
		return
	}
	if container, code, ok := failedContainer(pod); ok && !disrupted(pod) {
		o.phase, o.failed, o.container, o.exitCode = phaseToolFailed, pod, container, code
		return
	}
	why := pod.Status.Reason
	if why == "" {
		why = "Disrupted"
	}
	if pod.Status.Message != "" {
		why += ": " + pod.Status.Message
	}
	o.failed = pod
	o.lose(fmt.Sprintf("pod %s on node %s was stopped by the cluster (%s)", pod.Name, benchrun.NodeOf(pod), why))
}

// disrupted tells whether the cluster, not the tool, ended the pod: eviction,
// preemption, node shutdown or loss, or rejection at admission.
func disrupted(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return p.Status.Reason != ""
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

// pendingReasons say why a slot's pod does not run yet, from what the
// scheduler and kubelet wrote on it.
func pendingReasons(s slotRun) []string {
	if len(s.pods) == 0 {
		return []string{fmt.Sprintf("Job %s has no pod yet", s.job.Name)}
	}
	var out []string
	for _, p := range s.pods {
		out = append(out, benchrun.WhyPending(p)...)
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("the pod of Job %s is pending", s.job.Name))
	}
	return out
}

// unboundClaims names the claims that are not bound yet.
func unboundClaims(pvcs []corev1.PersistentVolumeClaim) []string {
	var out []string
	for _, c := range pvcs {
		if c.Status.Phase == corev1.ClaimBound {
			continue
		}
		class := "the default storage class"
		if c.Spec.StorageClassName != nil {
			class = "storage class " + *c.Spec.StorageClassName
		}
		phase := string(c.Status.Phase)
		if phase == "" {
			phase = string(corev1.ClaimPending)
		}
		out = append(out, fmt.Sprintf("%s (%s, %s)", c.Name, phase, class))
	}
	sort.Strings(out)
	return out
}

func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	c := findJobCondition(j, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

func findJobCondition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == t {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}
