package networkbenchmark

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/monitor"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// driver is the NetworkBenchmark's part of one reconcile: a headless
// Service as input, one Job per node for each attempt, and the nodes'
// reports as the result.
type driver struct {
	r *Reconciler
	b *benchv1.NetworkBenchmark
	// jobs and the current attempt, as Observe found them.
	jobs    *children.SlotJobs
	attempt children.SlotAttempt
	// reports of the collected repetition, for Record.
	reports []*netbench.Report
}

var _ benchrun.Driver = (*driver)(nil)

func (d *driver) Benchmark() benchrun.Benchmark { return d.b }

func (d *driver) Kind() string { return kind }

func (d *driver) nodes() int { return int(d.b.Spec.NodesOrDefault()) }

// Admit refuses the host network unless the admin allows it.
func (d *driver) Admit() error {
	return benchrun.CheckHostNetwork("spec.hostNetwork", d.b.Spec.HostNetwork, d.r.AllowHostNetwork)
}

// EnsureInputs creates the NetworkPolicy that keeps other pods from the
// benchmark's ports, once, before any pod runs.
func (d *driver) EnsureInputs(ctx context.Context) error {
	_, err := d.r.Kit().CreateOwned(ctx, d.b, constructNetworkPolicy(d.b))
	return err
}

// ensureService points the headless Service through which the pods find
// each other at one attempt's pods: it creates it, or moves its selector
// from the attempt before.
func (d *driver) ensureService(ctx context.Context, rep, attempt int) error {
	want := constructService(d.b, rep, attempt)
	created, err := d.r.Kit().CreateOwned(ctx, d.b, want)
	if err != nil || created {
		return err
	}
	var svc corev1.Service
	if err := d.r.Get(ctx, client.ObjectKeyFromObject(want), &svc); err != nil {
		return err
	}
	if maps.Equal(svc.Spec.Selector, want.Spec.Selector) {
		return nil
	}
	svc.Spec.Selector = want.Spec.Selector
	if err := d.r.Update(ctx, &svc); err != nil {
		return fmt.Errorf("pointing Service %s at repetition %d attempt %d: %w", svc.Name, rep, attempt, err)
	}
	return nil
}

// Observe reads the Jobs and pods of the benchmark.
func (d *driver) Observe(ctx context.Context, rep int) (children.Attempt, error) {
	st, err := children.ListSlotJobs(ctx, d.r.Client, d.b, childLabels(d.b))
	if err != nil {
		return children.Attempt{}, err
	}
	d.jobs = st
	d.attempt, err = st.Observe(ctx, d.r.Kit().Reader, d.b, childLabels(d.b), rep, d.nodes())
	return d.attempt.Attempt, err
}

// CreateAttempt creates the Jobs of one attempt of a repetition, one per
// node.
func (d *driver) CreateAttempt(ctx context.Context, rep, attempt int) ([]client.Object, error) {
	if err := d.ensureService(ctx, rep, attempt); err != nil {
		return nil, err
	}
	image := cmp.Or(d.b.Spec.Image, d.r.Image)
	return d.r.Kit().CreateSlotJobs(ctx, d.b, d.nodes(), func(slot int) (*batchv1.Job, error) {
		return constructJob(d.b, jobParams{rep: rep, slot: slot, attempt: attempt, image: image, nodeFactsImage: d.r.NodeFactsImage})
	})
}

// StopAttempt stops the other nodes' pods of a lost attempt: the pairs of
// an attempt run together.
func (d *driver) StopAttempt(ctx context.Context, a children.Attempt) error {
	return children.DeleteActiveJobs(ctx, d.r.Client, d.jobs.JobsOf(a.Rep, a.Number))
}

// Failure fails the benchmark with what the failed pods' reports say.
func (d *driver) Failure(ctx context.Context, a children.Attempt) error {
	return d.r.toolFailure(ctx, d.b, a.Rep, d.attempt.Slots, d.attempt.Observation)
}

// Collect reads the nodes' reports of a finished repetition, stores them and
// turns them into samples. It reads one pod at a time: a report's outputs
// are parsed and let go before the next log is read.
func (d *driver) Collect(ctx context.Context, a children.Attempt) (benchrun.Collected, error) {
	b, r := d.b, d.r
	rep, total := a.Rep, b.Spec.Repetitions
	finished := d.attempt.Observation.Finished
	c := benchrun.Collected{Options: results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions), GroupBy: netbench.GroupBy}}
	in := netbench.InputOf(&b.Spec)
	names := slotNodes(finished)
	infos := map[string]results.NodeInfo{}
	for _, pod := range finished {
		node, err := runstore.DescribeNode(ctx, r.Client, pod.Spec.NodeName, b.Spec.Tuning)
		if err != nil {
			return c, err
		}
		log, err := podlogs.ReadOutput(ctx, r.Logs, pod, container)
		if err == nil {
			node.Facts, err = children.ReadNodeFacts(ctx, r.Logs, pod)
		}
		if oe := (*outcome.Outcome)(nil); errors.As(err, &oe) {
			oe.Message = fmt.Sprintf("repetition %d/%d, pod %s on node %s: %s", rep+1, total, pod.Name, podlogs.NodeOf(pod), oe.Message)
			return c, oe
		}
		if err != nil {
			if done := d.jobs.CompletedAt(pod); !done.IsZero() && r.Now().Sub(done) > podlogs.LogGrace {
				return c, outcome.Fail(benchv1.ReasonLogsUnavailable, fmt.Sprintf("the output of pod %s could not be read for %s: %v", pod.Name, podlogs.LogGrace, err))
			}
			return c, err
		}
		if err := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, rep, pod.Name, log); err != nil {
			return c, err
		}
		report, err := netbench.ReadReport(log)
		if err == nil {
			// The pod wrote the report: only what the plan holds reaches the status.
			err = report.Check(in, podSlot(pod))
		}
		if err != nil {
			return c, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("repetition %d/%d, pod %s on node %s: %v\n%s", rep+1, total, pod.Name, podlogs.NodeOf(pod), err, podlogs.Tail(log)))
		}
		report.Node = pod.Spec.NodeName
		node.Topology, node.AllowedCPUs = report.Topology, report.AllowedCPUs
		node.Windows = children.Windows(rep, pod)
		infos[report.Node] = node
		c.Nodes = append(c.Nodes, node)
		d.reports = append(d.reports, report)
		if err := sameTopology(d.reports); err != nil {
			return c, outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		parsed, err := netbench.ReportSamples(in, report, names)
		if err != nil {
			return c, reportFailure(err, rep, total)
		}
		monitored, warning, err := monitor.Collect(ctx, r.Logs, r.Run(b, kind, b.Status.StartTime), rep, pod, report.Phases())
		if err != nil {
			return c, err
		}
		if warning != "" {
			c.Warnings = append(c.Warnings, warning)
		}
		parsed = append(parsed, monitored...)
		report.Steps = nil // parsed: the outputs go
		if c.Samples = append(c.Samples, parsed...); len(c.Samples) > results.MaxRunSamples {
			return c, runstore.TooManySamples(fmt.Sprintf("repetition %d/%d", rep+1, total))
		}
	}
	end := podlogs.FinishTime(finished[0])
	for i := range c.Samples {
		// A pair's figures are the client's: its node is the sample's node.
		runstore.Origin{
			Object: b, Kind: kind, Placement: b.Spec.Placement, WarmupRepetitions: b.Spec.WarmupRepetitions,
			Repetition: rep, Attempt: a.Number, Node: infos[c.Samples[i].Labels[results.LabelNode]], Finished: end,
		}.Label(c.Samples[i : i+1])
	}
	return c, nil
}

// Record shows the nodes' topology and the pairs' figures so far in the
// status.
func (d *driver) Record(summaries []results.Summary) string {
	d.b.Status.Topology = nodeTopologies(d.reports)
	d.b.Status.Pairs, d.b.Status.Summary = statusPairs(summaries)
	return summaryNote(d.b)
}

// StopChildren deletes the Jobs that still run after a failure.
func (d *driver) StopChildren(ctx context.Context) error {
	st, err := children.ListSlotJobs(ctx, d.r.Client, d.b, childLabels(d.b))
	if err != nil {
		return err
	}
	return children.DeleteActiveJobs(ctx, d.r.Client, st.Jobs)
}

func (d *driver) Display() { syncDisplay(d.b) }
