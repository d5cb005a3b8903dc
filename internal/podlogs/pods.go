package podlogs

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// WhyPending says why a pod does not run yet, from what the scheduler and
// the kubelet wrote on it: unschedulable, image pull errors, missing volumes.
// Nothing for a pod that is not Pending.
func WhyPending(p *corev1.Pod) []string {
	if p.Status.Phase != corev1.PodPending {
		return nil
	}
	var out []string
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
			out = append(out, fmt.Sprintf("pod %s is not scheduled: %s", p.Name, c.Message))
		}
	}
	for _, statuses := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
				msg := fmt.Sprintf("container %s of pod %s is waiting: %s", cs.Name, p.Name, w.Reason)
				if w.Message != "" {
					msg += " (" + w.Message + ")"
				}
				out = append(out, msg)
			}
		}
	}
	return out
}

// NodeOf is the pod's node, or "(unscheduled)".
func NodeOf(p *corev1.Pod) string {
	if p.Spec.NodeName == "" {
		return "(unscheduled)"
	}
	return p.Spec.NodeName
}

// PodInPhase is the first of pods in phase ph, or nil.
func PodInPhase(pods []*corev1.Pod, ph corev1.PodPhase) *corev1.Pod {
	for _, p := range pods {
		if p.Status.Phase == ph {
			return p
		}
	}
	return nil
}

// RunWindow is when the pod's containers ran, init containers and native
// sidecars (the sampler) aside: from the first start to the last end; zero
// ends for what is not known.
func RunWindow(p *corev1.Pod) (start, end time.Time) {
	for _, cs := range p.Status.ContainerStatuses {
		term := cs.State.Terminated
		if term == nil {
			continue
		}
		if s := term.StartedAt.UTC(); !term.StartedAt.IsZero() && (start.IsZero() || s.Before(start)) {
			start = s
		}
		if term.FinishedAt.After(end) {
			end = term.FinishedAt.UTC()
		}
	}
	return start, end
}

// FinishTime is when the pod's last container ended, init containers
// included, for samples whose tool prints no time of its own.
func FinishTime(p *corev1.Pod) (t time.Time) {
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.UTC()
		}
	}
	return t
}
