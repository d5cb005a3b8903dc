package mpibenchmark

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
)

// childSet holds the MPIJobs of a benchmark and the pods the MPI Operator made
// for them (they carry the templates' labels, and the owner chain to one of
// the MPIJobs).
type childSet struct {
	jobs []*mpiv2.MPIJob
	pods []*corev1.Pod
}

func (r *Reconciler) listChildren(ctx context.Context, b *benchv1.MPIBenchmark) (*childSet, error) {
	sel := client.MatchingLabels(childLabels(b))
	ns := client.InNamespace(b.Namespace)
	var jobs mpiv2.MPIJobList
	if err := r.List(ctx, &jobs, ns, sel); err != nil {
		return nil, err
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, ns, sel); err != nil {
		return nil, err
	}
	st := &childSet{}
	for i := range jobs.Items {
		if children.OwnedBy(&jobs.Items[i], b) {
			st.jobs = append(st.jobs, &jobs.Items[i])
		}
	}
	for i := range pods.Items {
		if st.owner(&pods.Items[i]) != nil {
			st.pods = append(st.pods, &pods.Items[i])
		}
	}
	return st, nil
}

// launcherSuffix ends the name of the batch Job the MPI Operator (v2)
// makes for an MPIJob's launcher: <mpijob>-launcher.
const launcherSuffix = "-launcher"

// owner is the benchmark's MPIJob a pod belongs to by its controller
// reference, nil when it belongs to none: a worker must be controlled by
// the MPIJob itself, a launcher by a batch Job named after the MPIJob (whose
// own controller verifyLaunchers checks before a launcher's log is read).
// The labels say which role a pod claims; anyone who may create pods in the
// namespace can copy them, not the MPIJob's UID as a controller.
func (c *childSet) owner(p *corev1.Pod) *mpiv2.MPIJob {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil
	}
	for _, j := range c.jobs {
		switch p.Labels[roleLabel] {
		case roleWorker:
			if gv.Group == mpiv2.GroupName && ref.Kind == mpiv2.Kind && ref.UID == j.UID && ref.Name == j.Name {
				return j
			}
		case roleLauncher:
			if gv.Group == batchv1.GroupName && ref.Kind == "Job" && ref.Name == j.Name+launcherSuffix {
				return j
			}
		}
	}
	return nil
}

// verifyLaunchers keeps of pods the workers and the launchers whose Job is
// controlled by job: the last link of launcher pod -> Job -> MPIJob, read
// around the cache (the MPI Operator's launcher Job carries none of
// benchwright's labels). Called once the MPIJob has finished, before its
// launcher's log becomes the result or the failure.
func verifyLaunchers(ctx context.Context, r client.Reader, job *mpiv2.MPIJob, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	var out []*corev1.Pod
	checked := map[types.UID]bool{}
	for _, p := range pods {
		if p.Labels[roleLabel] != roleLauncher {
			out = append(out, p)
			continue
		}
		ref := metav1.GetControllerOf(p)
		ok, seen := checked[ref.UID]
		if !seen {
			var lj batchv1.Job
			err := r.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: ref.Name}, &lj)
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("reading launcher Job %s: %w", ref.Name, err)
			}
			ok = err == nil && lj.UID == ref.UID && metav1.IsControlledBy(&lj, job)
			checked[ref.UID] = ok
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// current is the latest attempt of a repetition and its MPIJob (nil, -1 when
// none exists).
func (c *childSet) current(rep int) (int, *mpiv2.MPIJob) {
	attempt, job := -1, (*mpiv2.MPIJob)(nil)
	for _, j := range c.jobs {
		if children.LabelInt(j, benchv1.RepetitionLabel) == rep {
			if a := children.LabelInt(j, attemptLabel); a > attempt {
				attempt, job = a, j
			}
		}
	}
	return attempt, job
}

// podsOf are the launcher and worker pods of one MPIJob.
func (c *childSet) podsOf(j *mpiv2.MPIJob) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range c.pods {
		if c.owner(p) == j {
			out = append(out, p)
		}
	}
	return out
}

// summaryNote is the headline of an event: latency and peak bandwidth so far.
func summaryNote(s benchv1.MPISummary) string {
	var parts []string
	if s.LatencyMicroseconds != nil {
		parts = append(parts, fmt.Sprintf("%s us at %d B", strconv.FormatFloat(*s.LatencyMicroseconds, 'g', 4, 64), *s.LatencyMessageSize))
	}
	if s.PeakBandwidthMBps != nil {
		parts = append(parts, fmt.Sprintf("peak %s MB/s", strconv.FormatFloat(*s.PeakBandwidthMBps, 'f', 0, 64)))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ") + " (median so far)"
}
