package networkbenchmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// reportFailure fails the benchmark with what a node's report says.
func reportFailure(err error, rep int, total int32) error {
	if errors.Is(err, results.ErrOutputTooLarge) {
		return runstore.TooManySamples(fmt.Sprintf("repetition %d/%d", rep+1, total))
	}
	reason := benchv1.ReasonUnparsableOutput
	if se := (*netbench.StepError)(nil); errors.As(err, &se) {
		reason = benchv1.ReasonToolFailed
	}
	return outcome.Fail(reason, fmt.Sprintf("repetition %d/%d: %v", rep+1, total, err))
}

// podSlot is the node slot of a pod, from its Job's label (-1 without).
func podSlot(p *corev1.Pod) int {
	slot, err := strconv.Atoi(p.Labels[children.SlotLabel])
	if err != nil {
		return -1
	}
	return slot
}

// slotNodes maps each pod's node slot to its node's name.
func slotNodes(pods []*corev1.Pod) map[int]string {
	names := map[int]string{}
	for _, p := range pods {
		if slot, err := strconv.Atoi(p.Labels[children.SlotLabel]); err == nil {
			names[slot] = p.Spec.NodeName
		}
	}
	return names
}

// sameTopology fails when the nodes planned differently: their topologies
// differ, so a pair would mean other CPUs on each.
func sameTopology(reports []*netbench.Report) error {
	for _, r := range reports[1:] {
		if r.Plan != reports[0].Plan {
			return fmt.Errorf("nodes %s and %s have different CPU topologies (%s and %s), so the pairs differ between them: a NetworkBenchmark needs nodes of one machine type",
				reports[0].Node, r.Node, describeTopology(reports[0]), describeTopology(r))
		}
	}
	return nil
}

func describeTopology(r *netbench.Report) string {
	if r.Topology == nil {
		return "unknown"
	}
	return fmt.Sprintf("%d CPUs, %d chiplets by %s", len(r.Topology.CPUs), r.Topology.Chiplets(), r.Topology.ChipletsFrom)
}

// toolFailure fails the benchmark with the step that failed first. When a
// node stopped because its peer failed, the peer's report has the cause.
// Each log is streamed to the store; only its end (where the report is,
// netbench.MaxFailedReport of it) and its diagnostics are held.
func (r *Reconciler) toolFailure(ctx context.Context, b *benchv1.NetworkBenchmark, rep int, slots []children.SlotRun, obs children.Observation) error {
	total := b.Spec.Repetitions
	run := r.Run(b, kind, b.Status.StartTime)
	var first string
	for _, pod := range failedPods(slots, obs.Failed) {
		failed, err := podlogs.ReadFailed(ctx, r.Logs, pod, container, netbench.MaxFailedReport, func(log io.Reader) error {
			return run.PutRawLogFrom(ctx, rep, pod.Name, log)
		})
		switch {
		case err != nil:
			return err
		case failed.TooLarge:
			first = firstOr(first, fmt.Sprintf("pod %s on node %s failed; %s", pod.Name, podlogs.NodeOf(pod), failed.Quote()))
			continue
		case failed.Unreadable != nil:
			first = fmt.Sprintf("pod %s on node %s failed; its log could not be read: %v", pod.Name, podlogs.NodeOf(pod), failed.Unreadable)
			continue
		}
		report, err := netbench.ReadReport(failed.End)
		if err != nil {
			msg := fmt.Sprintf("pod %s on node %s exited without a report; %s", pod.Name, podlogs.NodeOf(pod), failed.Quote())
			first = firstOr(first, msg)
			continue
		}
		msg := report.Error
		if f := report.Failed(); f != nil {
			msg = (&netbench.StepError{Node: podlogs.NodeOf(pod), Step: *f}).Error()
		}
		if !strings.Contains(msg, "the server's node") {
			return outcome.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s", rep+1, total, msg))
		}
		first = firstOr(first, msg)
	}
	return outcome.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s", rep+1, total, first))
}

func firstOr(first, msg string) string {
	if first == "" {
		return msg
	}
	return first
}

// failedPods are the attempt's failed pods, the one observed first.
func failedPods(slots []children.SlotRun, first *corev1.Pod) []*corev1.Pod {
	out := []*corev1.Pod{first}
	for _, s := range slots {
		for _, p := range s.Pods {
			if p.Status.Phase == corev1.PodFailed && p.UID != first.UID {
				out = append(out, p)
			}
		}
	}
	return out
}
