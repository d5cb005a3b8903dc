package mpibenchmark

import (
	"fmt"
	"strings"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/podlogs"
)

func startTimeout(b *benchv1.MPIBenchmark) time.Duration {
	return benchrun.StartTimeout(b.Spec.Timeouts)
}

func runTimeout(b *benchv1.MPIBenchmark) time.Duration { return benchrun.RunTimeout(b.Spec.Timeouts) }

// observation is what an MPIJob and its pods say.
type observation struct {
	phase children.Phase
	// launcher is the launcher pod, when there is one.
	launcher *corev1.Pod
	// why explains every phase but success in words.
	why string
	// created is when the MPIJob was created; started when it began running.
	created, started time.Time
	// unmade: starting, with its launcher or some worker not created yet.
	unmade bool
}

// observe classifies an MPIJob from its conditions, which the MPI Operator
// keeps, and the pods it made.
func observe(job *mpiv2.MPIJob, pods []*corev1.Pod) observation {
	o := observation{created: job.CreationTimestamp.Time}
	var launcher []*corev1.Pod
	var workers []*corev1.Pod
	for _, p := range pods {
		switch p.Labels[roleLabel] {
		case roleLauncher:
			launcher = append(launcher, p)
		case roleWorker:
			workers = append(workers, p)
		}
	}
	if c := condition(job, mpiv2.JobRunning); c != nil && c.Status == corev1.ConditionTrue {
		o.started = c.LastTransitionTime.Time
	}
	lost := lostLauncher(launcher)
	switch {
	case conditionTrue(job, mpiv2.JobSucceeded):
		o.phase, o.launcher = children.PhaseSucceeded, podlogs.PodInPhase(launcher, corev1.PodSucceeded)
		if o.launcher == nil {
			o.phase, o.why = children.PhaseLost, fmt.Sprintf("MPIJob %s succeeded but its launcher pod is gone, and with it the output", job.Name)
		}
	case conditionTrue(job, mpiv2.JobFailed):
		c := condition(job, mpiv2.JobFailed)
		o.why = fmt.Sprintf("MPIJob %s failed (%s): %s", job.Name, c.Reason, c.Message)
		o.launcher = podlogs.PodInPhase(launcher, corev1.PodFailed)
		lost := lostWorker(workers, o.launcher, c.LastTransitionTime.Time)
		switch {
		case strings.Contains(c.Reason, "Evicted") || strings.Contains(c.Reason, "Preempt"):
			o.phase = children.PhaseLost
		case lost != "":
			o.phase, o.why = children.PhaseLost, fmt.Sprintf("MPIJob %s failed after %s", job.Name, lost)
		case strings.Contains(c.Reason, "DeadlineExceeded"):
			o.phase = children.PhaseDeadline
		default:
			o.phase = children.PhaseToolFailed
		}
	case lost != nil:
		o.launcher, o.phase = lost, children.PhaseLost
		o.why = fmt.Sprintf("launcher pod %s on node %s was stopped by the cluster (%s)", lost.Name, podlogs.NodeOf(lost), children.WhyDisrupted(lost))
	case !o.started.IsZero():
		o.phase = children.PhaseRunning
	default:
		o.phase, o.why = children.PhaseStarting, whyStarting(job, workers, launcher)
		o.unmade = len(launcher) == 0 || int32(len(workers)) < workerReplicas(job)
	}
	return o
}

// lostLauncher is a launcher pod the cluster is taking away while the MPIJob
// still runs: evicted from a node that stopped answering, it never ends, and
// neither would its Job's Failed condition nor the MPIJob's. Nil when none.
func lostLauncher(launcher []*corev1.Pod) *corev1.Pod {
	for _, l := range launcher {
		if l.DeletionTimestamp != nil && children.Disruption(l) != nil {
			return l
		}
	}
	return nil
}

// lostWorker names a worker that went away while the launcher ran, before
// the MPIJob failed at failedAt: one whose deletion was asked for then (a
// person, a drain, the node's eviction), one the cluster marked for
// disruption, or a replacement the MPI Operator made for a vanished one. The
// MPI Operator deletes running workers itself once the job failed: those
// deletions come after failedAt and are not losses. "" when none.
func lostWorker(workers []*corev1.Pod, launcher *corev1.Pod, failedAt time.Time) string {
	var launched time.Time
	if launcher != nil && launcher.Status.StartTime != nil {
		launched = launcher.Status.StartTime.Time
	}
	for _, w := range workers {
		if d := w.DeletionTimestamp; d != nil {
			asked := d.Time
			if g := w.DeletionGracePeriodSeconds; g != nil {
				asked = asked.Add(-time.Duration(*g) * time.Second)
			}
			if asked.Before(failedAt) {
				return fmt.Sprintf("worker pod %s was deleted while the run ran", w.Name)
			}
		}
		if c := children.Disruption(w); c != nil && !c.LastTransitionTime.After(failedAt) {
			return fmt.Sprintf("worker pod %s was disrupted while the run ran (%s: %s)", w.Name, c.Reason, c.Message)
		}
		if !launched.IsZero() && w.CreationTimestamp.After(launched) && !w.CreationTimestamp.After(failedAt) {
			return fmt.Sprintf("worker pod %s was replaced while the run ran (the MPI Operator recreated it at %s, after the launcher started)",
				w.Name, w.CreationTimestamp.UTC().Format(time.TimeOnly))
		}
	}
	return ""
}

// whyStarting says what the MPIJob waits for.
func whyStarting(job *mpiv2.MPIJob, workers, launcher []*corev1.Pod) string {
	var out []string
	ready := 0
	for _, w := range workers {
		if w.Status.Phase == corev1.PodRunning {
			ready++
		}
		out = append(out, podlogs.WhyPending(w)...)
	}
	for _, l := range launcher {
		out = append(out, podlogs.WhyPending(l)...)
	}
	want := workerReplicas(job)
	head := fmt.Sprintf("%d of %d workers running", ready, want)
	if len(launcher) == 0 {
		head += ", launcher not created yet"
	}
	return strings.Join(append([]string{head}, out...), "; ")
}

// workerReplicas is how many workers the MPIJob asks for.
func workerReplicas(job *mpiv2.MPIJob) int32 {
	if spec := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker]; spec != nil && spec.Replicas != nil {
		return *spec.Replicas
	}
	return 0
}

func condition(job *mpiv2.MPIJob, t mpiv2.JobConditionType) *mpiv2.JobCondition {
	for i := range job.Status.Conditions {
		if job.Status.Conditions[i].Type == t {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

func conditionTrue(job *mpiv2.MPIJob, t mpiv2.JobConditionType) bool {
	c := condition(job, t)
	return c != nil && c.Status == corev1.ConditionTrue
}
