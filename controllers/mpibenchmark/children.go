package mpibenchmark

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
)

// childSet holds the MPIJobs of a benchmark and the pods the MPI Operator made
// for them (they carry the templates' labels).
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
		st.pods = append(st.pods, &pods.Items[i])
	}
	return st, nil
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
	rep, attempt := j.Labels[benchv1.RepetitionLabel], j.Labels[attemptLabel]
	var out []*corev1.Pod
	for _, p := range c.pods {
		if p.Labels[benchv1.RepetitionLabel] == rep && p.Labels[attemptLabel] == attempt {
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
