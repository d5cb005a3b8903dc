package storagebenchmark

import (
	"context"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
)

// children are the Jobs, pods and claims of one benchmark.
type children struct {
	jobs   []*batchv1.Job
	pods   []*corev1.Pod
	claims []corev1.PersistentVolumeClaim
}

// listChildren reads the benchmark's children by label and keeps those it
// owns (a pod belongs to the benchmark through its Job).
func (r *Reconciler) listChildren(ctx context.Context, b *benchv1.StorageBenchmark) (*children, error) {
	sel := client.MatchingLabels(childLabels(b))
	ns := client.InNamespace(b.Namespace)
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, ns, sel); err != nil {
		return nil, err
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, ns, sel); err != nil {
		return nil, err
	}
	var claims corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &claims, ns, sel); err != nil {
		return nil, err
	}
	st := &children{}
	uids := map[string]bool{}
	for i := range jobs.Items {
		if j := &jobs.Items[i]; benchrun.OwnedBy(j, b) {
			st.jobs = append(st.jobs, j)
			uids[string(j.UID)] = true
		}
	}
	for i := range pods.Items {
		if ref := metav1.GetControllerOf(&pods.Items[i]); ref != nil && uids[string(ref.UID)] {
			st.pods = append(st.pods, &pods.Items[i])
		}
	}
	for _, c := range claims.Items {
		if benchrun.OwnedBy(&c, b) {
			st.claims = append(st.claims, c)
		}
	}
	return st, nil
}

// current is the latest attempt of a repetition (-1 when none exists) and the
// node slots of that attempt.
func (c *children) current(rep int) (int, []slotRun) {
	attempt := -1
	for _, j := range c.jobs {
		if benchrun.LabelInt(j, benchv1.RepetitionLabel) == rep {
			attempt = max(attempt, benchrun.LabelInt(j, attemptLabel))
		}
	}
	if attempt < 0 {
		return -1, nil
	}
	var slots []slotRun
	for _, j := range c.jobsOf(rep, attempt) {
		s := slotRun{job: j}
		for _, p := range c.pods {
			if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == j.UID {
				s.pods = append(s.pods, p)
			}
		}
		slots = append(slots, s)
	}
	return attempt, slots
}

func (c *children) jobsOf(rep, attempt int) []*batchv1.Job {
	var out []*batchv1.Job
	for _, j := range c.jobs {
		if benchrun.LabelInt(j, benchv1.RepetitionLabel) == rep && benchrun.LabelInt(j, attemptLabel) == attempt {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		return benchrun.LabelInt(out[a], slotLabel) < benchrun.LabelInt(out[b], slotLabel)
	})
	return out
}

// completedAt is when the Job of a finished pod completed.
func (c *children) completedAt(p *corev1.Pod) time.Time {
	ref := metav1.GetControllerOf(p)
	for _, j := range c.jobs {
		if ref != nil && j.UID == ref.UID && j.Status.CompletionTime != nil {
			return j.Status.CompletionTime.Time
		}
	}
	return time.Time{}
}

// deleteActiveJobs stops Jobs that still run, with their pods.
func (r *Reconciler) deleteActiveJobs(ctx context.Context, jobs []*batchv1.Job) error {
	for _, j := range jobs {
		if jobCondition(j, batchv1.JobComplete) || jobCondition(j, batchv1.JobFailed) {
			continue
		}
		err := r.Delete(ctx, j, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

func headlineNote(b *benchv1.StorageBenchmark) string {
	if b.Status.Headline == "" {
		return ""
	}
	return ": " + b.Status.Headline + " (median so far)"
}
