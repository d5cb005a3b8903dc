package mpibenchmark

import (
	"context"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/monitor"
	"github.com/benchwright/benchwright/internal/mpi"
	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// stepPhases are the launcher's steps on the clock, each test of a step
// with the step's whole time (an IMB step runs its tests one after the
// other, in one process), from the trailers that say when a step ended.
func stepPhases(l *mpi.Launch, log []byte) []sampler.Phase {
	steps, err := mpi.SplitSteps(log)
	if err != nil {
		return nil
	}
	var out []sampler.Phase
	for i, s := range steps {
		if s.Ended.IsZero() || i >= len(l.Steps) {
			continue
		}
		for _, test := range l.Steps[i].Tests {
			out = append(out, sampler.NewPhase(test, s.Ended.Add(-s.Duration), s.Ended))
		}
	}
	return out
}

// collectSeries reads the samplers of the launcher and the workers of a
// finished MPIJob: their summaries are labelled with the pod's role (side)
// and node.
func (d *driver) collectSeries(ctx context.Context, rep int, phases []sampler.Phase, c *benchrun.Collected) ([]results.Sample, error) {
	var out []results.Sample
	for _, pod := range d.children.podsOf(d.job) {
		side := pod.Labels[roleLabel]
		labelled := make([]sampler.Phase, len(phases))
		for i, ph := range phases {
			ph.Labels = map[string]string{sampler.LabelSide: side}
			labelled[i] = ph
		}
		samples, warning, err := monitor.Collect(ctx, d.r.Logs, d.r.Run(d.b, kind, d.b.Status.StartTime), rep, pod, labelled)
		if err != nil {
			return nil, err
		}
		if warning != "" {
			c.Warnings = append(c.Warnings, warning)
		}
		out = append(out, samples...)
	}
	return out, nil
}

// releaseWorkers lets the MPI Operator delete the workers of a finished
// MPIJob, kept for their samplers (cleanPodPolicy None): the policy becomes
// Running, and the operator deletes the workers still running.
func (r *Reconciler) releaseWorkers(ctx context.Context, job *mpiv2.MPIJob) error {
	if job == nil || job.Spec.RunPolicy.CleanPodPolicy == nil || *job.Spec.RunPolicy.CleanPodPolicy != mpiv2.CleanPodPolicyNone {
		return nil
	}
	patch := client.MergeFrom(job.DeepCopy())
	job.Spec.RunPolicy.CleanPodPolicy = ptr.To(mpiv2.CleanPodPolicyRunning)
	return client.IgnoreNotFound(r.Patch(ctx, job, patch))
}

// releaseFinished releases the workers of every finished MPIJob but the
// one whose repetition is being collected (keep).
func (r *Reconciler) releaseFinished(ctx context.Context, jobs []*mpiv2.MPIJob, keep *mpiv2.MPIJob) error {
	for _, j := range jobs {
		if j == keep || !conditionTrue(j, mpiv2.JobSucceeded) && !conditionTrue(j, mpiv2.JobFailed) {
			continue
		}
		if err := r.releaseWorkers(ctx, j); err != nil {
			return err
		}
	}
	return nil
}

// keepNodes labels the sampler's summaries like the tool's figures, but
// with the node each was read on, not the first worker's that labelSamples
// gives every figure.
func keepNodes(samples []results.Sample, label func([]results.Sample)) {
	nodes := make([]string, len(samples))
	for i, s := range samples {
		nodes[i] = s.Labels[results.LabelNode]
	}
	label(samples)
	for i := range samples {
		samples[i].Labels[results.LabelNode] = nodes[i]
	}
}
