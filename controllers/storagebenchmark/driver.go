package storagebenchmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/monitor"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/runstore"
)

// driver is the StorageBenchmark's part of one reconcile: the fio job file
// and the claims as inputs, one Job per node slot for each attempt, and the
// pods' fio or dd output as the result.
type driver struct {
	r *Reconciler
	b *benchv1.StorageBenchmark
	// children and the current attempt, as Observe found them.
	children *childSet
	attempt  children.SlotAttempt
	// jobFile is the fio job file, from EnsureInputs; empty with dd.
	jobFile string
}

var _ benchrun.Driver = (*driver)(nil)

func (d *driver) Benchmark() benchrun.Benchmark { return d.b }

func (d *driver) Kind() string { return kind }

// Admit refuses host paths outside the admin's prefixes.
func (d *driver) Admit() error {
	if err := checkHostPaths(d.b, d.r.HostPathPrefixes); err != nil {
		return outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
	}
	return nil
}

// EnsureInputs builds the fio job file, which each Job's pod template
// carries, and creates the claims, once.
func (d *driver) EnsureInputs(ctx context.Context) error {
	b := d.b
	if b.Spec.Fio != nil {
		jobFile, err := constructJobFile(b)
		if err == nil {
			err = checkJobFile(jobFile)
		}
		if err != nil {
			return outcome.Fail(benchv1.ReasonInvalidSpec, err.Error())
		}
		d.jobFile = jobFile
	}
	for _, pvc := range constructPVCs(b) {
		if _, err := d.r.Kit().CreateOwned(ctx, b, pvc); err != nil {
			return err
		}
	}
	return nil
}

// Observe reads the Jobs, pods and claims; a starting attempt names the
// claims that are not bound yet.
func (d *driver) Observe(ctx context.Context, rep int) (children.Attempt, error) {
	st, err := d.r.listChildren(ctx, d.b)
	if err != nil {
		return children.Attempt{}, err
	}
	d.children = st
	d.attempt, err = st.Observe(ctx, d.r.Kit().Reader, d.b, childLabels(d.b), rep, int(d.b.Spec.Nodes))
	a := d.attempt.Attempt
	if unbound := unboundClaims(st.claims); a.Phase == children.PhaseStarting && len(unbound) > 0 {
		a.Why = "PersistentVolumeClaim(s) not bound: " + strings.Join(unbound, ", ") + "; " + a.Why
		a.Waiting = benchv1.ReasonVolumesPending
	}
	return a, err
}

// CreateAttempt creates the Jobs of one attempt of a repetition, one per
// node slot.
func (d *driver) CreateAttempt(ctx context.Context, rep, attempt int) ([]client.Object, error) {
	b := d.b
	image := b.Spec.Image
	if image == "" {
		image = d.r.Image
	}
	if rep == 0 && b.Spec.Fio != nil {
		// The run's files keep what ran, after the Jobs are gone.
		if err := d.r.Run(b, kind, b.Status.StartTime).PutJobFile(ctx, []byte(d.jobFile)); err != nil {
			return nil, err
		}
	}
	return d.r.Kit().CreateSlotJobs(ctx, b, int(b.Spec.Nodes), func(slot int) (*batchv1.Job, error) {
		return constructJob(b, jobParams{rep: rep, slot: slot, attempt: attempt, image: image, dropCachesImage: d.r.Image, nodeFactsImage: d.r.NodeFactsImage, jobFile: d.jobFile, hostPathPrefixes: d.r.HostPathPrefixes})
	})
}

// StopAttempt stops the other node slots of a lost attempt: a distributed
// run restarts whole.
func (d *driver) StopAttempt(ctx context.Context, a children.Attempt) error {
	return children.DeleteActiveJobs(ctx, d.r.Client, d.children.JobsOf(a.Rep, a.Number))
}

// Failure fails the benchmark with the failed container's exit code and
// what its log said, after storing the log. The log is streamed to the
// store: only its diagnostics and its last lines are held.
func (d *driver) Failure(ctx context.Context, a children.Attempt) error {
	b, obs := d.b, d.attempt.Observation
	pod := obs.Failed
	run := d.r.Run(b, kind, b.Status.StartTime)
	failed, err := podlogs.ReadFailed(ctx, d.r.Logs, pod, obs.Container, 0, func(log io.Reader) error {
		return run.PutRawLogFrom(ctx, a.Rep, pod.Name, log)
	})
	if err != nil {
		return err
	}
	what := obs.Container
	if what != fioContainer {
		what = "container " + what
	}
	return outcome.Fail(benchv1.ReasonToolFailed, fmt.Sprintf("repetition %d/%d: %s exited with code %d in pod %s on node %s; %s",
		a.Rep+1, b.Spec.Repetitions, what, obs.ExitCode, pod.Name, podlogs.NodeOf(pod), failed.Quote()))
}

// Collect reads and parses the output of each node slot's pod, one at a
// time: its raw log is stored and let go before the next is read.
func (d *driver) Collect(ctx context.Context, a children.Attempt) (benchrun.Collected, error) {
	b, r := d.b, d.r
	c := benchrun.Collected{Options: results.SummarizeOptions{WarmupRepetitions: int(b.Spec.WarmupRepetitions)}}
	for _, pod := range d.attempt.Observation.Finished {
		node, err := runstore.DescribeNode(ctx, r.Client, pod.Spec.NodeName, b.Spec.Tuning)
		if err != nil {
			return c, err
		}
		out, err := r.readOutput(ctx, b, pod)
		out.node = node
		out.node.Windows = children.Windows(a.Rep, pod)
		if err == nil {
			out.node.Facts, err = children.ReadNodeFacts(ctx, r.Logs, pod)
		}
		if len(out.raw) > 0 {
			if serr := r.Run(b, kind, b.Status.StartTime).PutRawLog(ctx, a.Rep, pod.Name, out.raw); serr != nil {
				return c, serr
			}
		}
		if err != nil {
			if oe := (*outcome.Outcome)(nil); errors.As(err, &oe) {
				oe.Message = fmt.Sprintf("repetition %d/%d, pod %s on node %s: %s", a.Rep+1, b.Spec.Repetitions, pod.Name, podlogs.NodeOf(pod), oe.Message)
				return c, oe
			}
			if done := d.children.CompletedAt(pod); !done.IsZero() && r.Now().Sub(done) > podlogs.LogGrace {
				return c, outcome.Fail(benchv1.ReasonLogsUnavailable, fmt.Sprintf("the output of pod %s could not be read for %s: %v", pod.Name, podlogs.LogGrace, err))
			}
			return c, err
		}
		monitored, warning, err := monitor.Collect(ctx, r.Logs, r.Run(b, kind, b.Status.StartTime), a.Rep, pod, phases(b, pod, out.raw))
		if err != nil {
			return c, err
		}
		if warning != "" {
			c.Warnings = append(c.Warnings, warning)
		}
		out.samples = append(out.samples, monitored...)
		labelSamples(b, &out, a.Rep, a.Number)
		if c.Samples = append(c.Samples, out.samples...); len(c.Samples) > results.MaxRunSamples {
			return c, runstore.TooManySamples(fmt.Sprintf("repetition %d/%d", a.Rep+1, b.Spec.Repetitions))
		}
		c.Nodes = append(c.Nodes, out.node)
	}
	return c, nil
}

// Record shows the figures so far in the status.
func (d *driver) Record(summaries []results.Summary) string {
	d.b.Status.Results = statusResults(summaries)
	d.b.Status.Headline = headline(d.b, d.b.Status.Results)
	return headlineNote(d.b)
}

// StopChildren deletes the Jobs that still run after a failure, so that
// they free the nodes.
func (d *driver) StopChildren(ctx context.Context) error {
	st, err := d.r.listChildren(ctx, d.b)
	if err != nil {
		return err
	}
	return children.DeleteActiveJobs(ctx, d.r.Client, st.Jobs)
}

func (d *driver) Display() { syncDisplay(d.b) }
