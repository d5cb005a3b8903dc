package networkbenchmark

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/results"
)

// collect reads the nodes' reports of a finished repetition, stores them,
// turns them into samples, and starts the next repetition or ends the
// benchmark. It reads one pod at a time: a report's outputs are parsed and
// let go before the next log is read.
func (r *Reconciler) collect(ctx context.Context, b *benchv1.NetworkBenchmark, st *benchrun.SlotJobs, rep, attempt int, obs benchrun.Observation) (ctrl.Result, error) {
	release, err := benchrun.Collecting(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer release()
	total := b.Spec.Repetitions
	in := netbench.InputOf(&b.Spec)
	names := slotNodes(obs.Finished)
	var reports []*netbench.Report
	var samples []results.Sample
	infos := map[string]results.NodeInfo{}
	var nodes []results.NodeInfo
	for _, pod := range obs.Finished {
		node, err := benchrun.DescribeNode(ctx, r.Client, pod.Spec.NodeName, b.Spec.Tuning)
		if err != nil {
			return ctrl.Result{}, err
		}
		log, err := benchrun.ReadOutput(ctx, r.Logs, pod, container)
		if oe := (*benchrun.Outcome)(nil); errors.As(err, &oe) {
			oe.Message = fmt.Sprintf("repetition %d/%d, pod %s on node %s: %s", rep+1, total, pod.Name, benchrun.NodeOf(pod), oe.Message)
			return ctrl.Result{}, oe
		}
		if err != nil {
			if done := st.CompletedAt(pod); !done.IsZero() && r.Now().Sub(done) > benchrun.LogGrace {
				return ctrl.Result{}, benchrun.Fail(benchv1.ReasonLogsUnavailable, fmt.Sprintf("the output of pod %s could not be read for %s: %v", pod.Name, benchrun.LogGrace, err))
			}
			return ctrl.Result{}, err
		}
		if err := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, log); err != nil {
			return ctrl.Result{}, err
		}
		report, err := netbench.ReadReport(log)
		if err != nil {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("repetition %d/%d, pod %s on node %s: %v\n%s", rep+1, total, pod.Name, benchrun.NodeOf(pod), err, benchrun.Tail(log)))
		}
		report.Node = pod.Spec.NodeName
		node.Topology, node.AllowedCPUs = report.Topology, report.AllowedCPUs
		infos[report.Node] = node
		nodes = append(nodes, node)
		reports = append(reports, report)
		if err := sameTopology(reports); err != nil {
			return ctrl.Result{}, benchrun.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		parsed, err := netbench.ReportSamples(in, report, names)
		if err != nil {
			return ctrl.Result{}, reportFailure(err, rep, total)
		}
		report.Steps = nil // parsed: the outputs go
		if samples = append(samples, parsed...); len(samples) > results.MaxRunSamples {
			return ctrl.Result{}, benchrun.TooManySamples(fmt.Sprintf("repetition %d/%d", rep+1, total))
		}
	}
	finished := benchrun.FinishTime(obs.Finished[0])
	for i := range samples {
		// A pair's figures are the client's: its node is the sample's node.
		benchrun.Origin{
			Object: b, Kind: kind, Placement: b.Spec.Placement, WarmupRepetitions: b.Spec.WarmupRepetitions,
			Repetition: rep, Attempt: attempt, Node: infos[samples[i].Labels[results.LabelNode]], Finished: finished,
		}.Label(samples[i : i+1])
	}
	summaries, err := r.Run(b, kind, b.Status.StartTime).AddRepetition(ctx, rep, samples, nodes,
		results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions), GroupBy: netbench.GroupBy})
	if err != nil {
		return ctrl.Result{}, err
	}
	b.Status.CompletedRepetitions = int32(rep + 1)
	b.Status.Topology = nodeTopologies(reports)
	b.Status.Pairs, b.Status.Summary = statusPairs(summaries)
	benchrun.RecordNodes(&b.Status.BenchmarkStatusCommon, nodes)
	r.Recorder.Eventf(b, corev1.EventTypeNormal, "RepetitionCompleted", "Repetition %d/%d completed%s", rep+1, total, summaryNote(b))
	if b.Status.CompletedRepetitions < total {
		return r.startAttempt(ctx, b, rep+1, 0)
	}
	return ctrl.Result{}, r.Succeed(ctx, b, kind, &b.Status.BenchmarkStatusCommon, total, b.Spec.Expectations, summaries)
}

// reportFailure fails the benchmark with what a node's report says.
func reportFailure(err error, rep int, total int32) error {
	if errors.Is(err, results.ErrOutputTooLarge) {
		return benchrun.TooManySamples(fmt.Sprintf("repetition %d/%d", rep+1, total))
	}
	reason := benchv1.ReasonUnparsableOutput
	if se := (*netbench.StepError)(nil); errors.As(err, &se) {
		reason = benchv1.ReasonToolFailed
	}
	return benchrun.Fail(reason, fmt.Sprintf("repetition %d/%d: %v", rep+1, total, err))
}

// slotNodes maps each pod's node slot to its node's name.
func slotNodes(pods []*corev1.Pod) map[int]string {
	names := map[int]string{}
	for _, p := range pods {
		if slot, err := strconv.Atoi(p.Labels[benchrun.SlotLabel]); err == nil {
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
func (r *Reconciler) toolFailure(ctx context.Context, b *benchv1.NetworkBenchmark, rep int, slots []benchrun.SlotRun, obs benchrun.Observation) error {
	total := b.Spec.Repetitions
	var first string
	for _, pod := range failedPods(slots, obs.Failed) {
		log, err := benchrun.ReadLog(ctx, r.Logs, pod, container)
		if errors.As(err, new(*benchrun.LogTooLargeError)) {
			first = firstOr(first, fmt.Sprintf("pod %s on node %s failed; %s", pod.Name, benchrun.NodeOf(pod), benchrun.Quote(log, err)))
			continue
		}
		if err != nil {
			first = fmt.Sprintf("pod %s on node %s failed; its log could not be read: %v", pod.Name, benchrun.NodeOf(pod), err)
			continue
		}
		if err := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, log); err != nil {
			return err
		}
		report, err := netbench.ReadReport(log)
		if err != nil {
			msg := fmt.Sprintf("pod %s on node %s exited without a report; %s", pod.Name, benchrun.NodeOf(pod), benchrun.Diagnostics(log))
			first = firstOr(first, msg)
			continue
		}
		msg := report.Error
		if f := report.Failed(); f != nil {
			msg = (&netbench.StepError{Node: benchrun.NodeOf(pod), Step: *f}).Error()
		}
		if !strings.Contains(msg, "the server's node") {
			return benchrun.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s", rep+1, total, msg))
		}
		first = firstOr(first, msg)
	}
	return benchrun.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s", rep+1, total, first))
}

func firstOr(first, msg string) string {
	if first == "" {
		return msg
	}
	return first
}

// failedPods are the attempt's failed pods, the one observed first.
func failedPods(slots []benchrun.SlotRun, first *corev1.Pod) []*corev1.Pod {
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
