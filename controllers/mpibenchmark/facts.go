package mpibenchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/nodefacts"
	"github.com/benchwright/benchwright/internal/outcome"
)

// nodeFactsAnnotation keeps the workers' node facts on their MPIJob, node
// name -> facts: the MPI Operator deletes running workers, and with them
// their logs, as soon as the launcher is done.
const nodeFactsAnnotation = "benchwright.io/node-facts"

// maxFactsAnnotation bounds the annotation (the API server takes 256 KiB of
// annotations per object): facts beyond it are not kept.
const maxFactsAnnotation = 128 << 10

// keepWorkerFacts reads the node-facts step of every worker once all of
// them have run it, and keeps the facts on the MPIJob. A log that cannot be
// read yet is tried again at the next reconcile.
func (r *Reconciler) keepWorkerFacts(ctx context.Context, job *mpiv2.MPIJob, pods []*corev1.Pod) error {
	if _, kept := job.Annotations[nodeFactsAnnotation]; kept {
		return nil
	}
	// Whether the workers have a node-facts step is read from the pods: the
	// manager's cache strips the MPIJob's pod templates (internal/managercache).
	spec := job.Spec.MPIReplicaSpecs[mpiv2.MPIReplicaTypeWorker]
	if spec == nil || spec.Replicas == nil {
		return nil
	}
	facts := map[string]nodefacts.Facts{}
	for _, p := range pods {
		if p.Labels[roleLabel] != roleWorker || p.Spec.NodeName == "" || !factsDone(p) {
			continue
		}
		f, err := children.ReadNodeFacts(ctx, r.Logs, p)
		if oe := (*outcome.Outcome)(nil); errors.As(err, &oe) {
			return oe
		}
		if err != nil {
			log.FromContext(ctx).V(1).Info("the node facts are not readable yet", "pod", p.Name, "err", err)
			return nil
		}
		if f != nil {
			facts[p.Spec.NodeName] = *f
		}
	}
	if len(facts) < int(*spec.Replicas) {
		return nil
	}
	data, err := json.Marshal(facts)
	if err != nil || len(data) > maxFactsAnnotation {
		return err
	}
	patch := client.MergeFrom(job.DeepCopy())
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Annotations[nodeFactsAnnotation] = string(data)
	return client.IgnoreNotFound(r.Patch(ctx, job, patch))
}

// factsDone tells whether a pod's node-facts step finished successfully.
func factsDone(p *corev1.Pod) bool {
	for _, s := range p.Status.InitContainerStatuses {
		if s.Name == children.NodeFactsContainer {
			return s.State.Terminated != nil && s.State.Terminated.ExitCode == 0
		}
	}
	return false
}

// keptFacts are the workers' facts kept on the MPIJob, by node; none when
// they were not kept.
func keptFacts(job *mpiv2.MPIJob) (map[string]nodefacts.Facts, error) {
	data, ok := job.Annotations[nodeFactsAnnotation]
	if !ok {
		return nil, nil
	}
	var facts map[string]nodefacts.Facts
	if err := json.Unmarshal([]byte(data), &facts); err != nil {
		return nil, outcome.Fail(benchv1.ReasonUnparsableOutput, fmt.Sprintf("MPIJob %s: annotation %s is not the workers' node facts: %v", job.Name, nodeFactsAnnotation, err))
	}
	return facts, nil
}
