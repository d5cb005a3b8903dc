package mpibenchmark

import (
	"context"
	"errors"
	"fmt"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// driver is the MPIBenchmark's part of one reconcile: the launcher's steps
// as input, in each MPIJob's launcher template, one MPIJob for each attempt,
// and the launcher's log as the result.
type driver struct {
	r *Reconciler
	b *benchv1.MPIBenchmark
	// launch is the launcher's program, and steps its JSON, from
	// EnsureInputs.
	launch *mpi.Launch
	steps  string
	// children and the current attempt's MPIJob, as Observe found them.
	children *childSet
	job      *mpiv2.MPIJob
	obs      observation
}

var _ benchrun.Driver = (*driver)(nil)

func (d *driver) Benchmark() benchrun.Benchmark { return d.b }

func (d *driver) Kind() string { return kind }

// Admit refuses the host network unless the admin allows it.
func (d *driver) Admit() error {
	return benchrun.CheckHostNetwork("spec.layout.hostNetwork", d.b.Spec.Layout.HostNetwork, d.r.AllowHostNetwork)
}

// EnsureInputs builds the launcher's steps, which each MPIJob's launcher
// template carries: nothing to create.
func (d *driver) EnsureInputs(context.Context) error {
	launch, err := buildLaunch(d.b)
	if err != nil {
		return outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
	}
	steps, err := constructSteps(launch)
	if err != nil {
		return outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
	}
	d.launch, d.steps = launch, steps
	return nil
}

// Observe reads the MPIJobs and their pods and classifies the current
// repetition's latest MPIJob.
func (d *driver) Observe(ctx context.Context, rep int) (children.Attempt, error) {
	st, err := d.r.listChildren(ctx, d.b)
	if err != nil {
		return children.Attempt{}, err
	}
	d.children = st
	a := children.Attempt{Rep: rep, Number: -1, Retries: children.Retries(st.jobs)}
	attempt, job := st.current(rep)
	if job == nil {
		return a, nil
	}
	pods := st.podsOf(job)
	if conditionTrue(job, mpiv2.JobSucceeded) || conditionTrue(job, mpiv2.JobFailed) {
		// The launcher's log is about to be read: only the launcher of
		// the MPIJob's own launcher Job may speak for it.
		if pods, err = verifyLaunchers(ctx, d.r.reader(), job, pods); err != nil {
			return a, err
		}
	}
	// Workers kept for their samplers go once their MPIJob is done with:
	// all but the current one, which Collect or Failure releases.
	if err := d.r.releaseFinished(ctx, st.jobs, job); err != nil {
		return a, err
	}
	d.job, d.obs = job, observe(job, pods)
	if err := d.r.keepWorkerFacts(ctx, job, pods); err != nil {
		return a, err
	}
	a.Number, a.Phase, a.Created, a.Started, a.Why, a.Unmade = attempt, d.obs.phase, d.obs.created, d.obs.started, d.obs.why, d.obs.unmade
	a.Pending = "the MPI workers were not ready"
	a.Note = " (MPIJob " + job.Name + ")"
	return a, nil
}

// CreateAttempt creates the MPIJob of one attempt of a repetition.
func (d *driver) CreateAttempt(ctx context.Context, rep, attempt int) ([]client.Object, error) {
	image := d.b.Spec.MPI.Image
	if image == "" {
		image = d.r.Images[d.b.Spec.MPI.ImplementationOrDefault()]
	}
	if rep == 0 {
		// The run's files keep what ran, after the MPIJobs are gone.
		if err := d.r.Run(d.b, kind, d.b.Status.StartTime).PutSteps(ctx, []byte(d.steps)); err != nil {
			return nil, err
		}
	}
	job := constructMPIJob(d.b, d.launch, jobParams{rep: rep, attempt: attempt, image: image, nodeFactsImage: d.r.NodeFactsImage, steps: d.steps})
	created, err := d.r.Kit().CreateOwned(ctx, d.b, job)
	if err != nil || !created {
		return nil, err
	}
	return []client.Object{job}, nil
}

// StopAttempt has nothing to stop: a lost MPIJob has failed whole.
func (d *driver) StopAttempt(context.Context, children.Attempt) error { return nil }

// Failure fails the benchmark with what the failed MPI run said.
func (d *driver) Failure(ctx context.Context, a children.Attempt) error {
	if err := d.r.releaseWorkers(ctx, d.job); err != nil {
		return err
	}
	return d.r.runFailure(ctx, d.b, d.launch, a.Rep, d.obs)
}

// Collect reads and parses the launcher's log of a finished repetition,
// after storing it, and describes the workers' nodes.
func (d *driver) Collect(ctx context.Context, a children.Attempt) (benchrun.Collected, error) {
	b, r := d.b, d.r
	c := benchrun.Collected{Options: summarizeOptions(b)}
	pod := d.obs.launcher
	raw, err := podlogs.ReadOutput(ctx, r.Logs, pod, launcherContainer)
	if oe := (*outcome.Outcome)(nil); errors.As(err, &oe) {
		oe.Message = fmt.Sprintf("repetition %d/%d, launcher %s: %s", a.Rep+1, b.Spec.Repetitions, pod.Name, oe.Message)
		return c, oe
	}
	if err != nil {
		if done := d.job.Status.CompletionTime; done != nil && r.Now().Sub(done.Time) > podlogs.LogGrace {
			return c, outcome.Fail(benchv1.ReasonLogsUnavailable, fmt.Sprintf("the launcher's output (pod %s) could not be read for %s: %v", pod.Name, podlogs.LogGrace, err))
		}
		return c, err
	}
	if err := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, a.Rep, pod.Name, raw); err != nil {
		return c, err
	}
	samples, err := parseLauncherLog(b, d.launch, raw)
	if err != nil {
		if oe := (*outcome.Outcome)(nil); errors.As(err, &oe) {
			oe.Message = fmt.Sprintf("repetition %d/%d, launcher %s: %s", a.Rep+1, b.Spec.Repetitions, pod.Name, oe.Message)
		}
		return c, err
	}
	facts, err := keptFacts(d.job)
	if err != nil {
		return c, err
	}
	for _, name := range workerNodes(d.children.podsOf(d.job), facts) {
		n, err := runstore.DescribeNode(ctx, r.Client, name, b.Spec.Tuning)
		if err != nil {
			return c, err
		}
		if f, ok := facts[name]; ok {
			n.Facts = &f
		}
		// The launcher runs the tool: its window is every worker's.
		n.Windows = children.Windows(a.Rep, pod)
		c.Nodes = append(c.Nodes, n)
	}
	label := func(s []results.Sample) { labelSamples(b, s, c.Nodes, a.Rep, a.Number, podlogs.FinishTime(pod)) }
	label(samples)
	monitored, err := d.collectSeries(ctx, a.Rep, stepPhases(d.launch, raw), &c)
	if err != nil {
		return c, err
	}
	keepNodes(monitored, label)
	// The workers' series are read: the MPI Operator may delete them.
	if err := r.releaseWorkers(ctx, d.job); err != nil {
		return c, err
	}
	samples = append(samples, monitored...)
	c.Samples = samples
	return c, nil
}

// Record shows the figures so far in the status.
func (d *driver) Record(summaries []results.Summary) string {
	d.b.Status.Results = statusResults(d.b, summaries)
	d.b.Status.Summary = summaryOf(d.b.Status.Results)
	return summaryNote(d.b.Status.Summary)
}

// StopChildren deletes the MPIJobs that still run after a failure.
func (d *driver) StopChildren(ctx context.Context) error { return d.r.stopChildren(ctx, d.b) }

func (d *driver) Display() { syncDisplay(d.b) }
