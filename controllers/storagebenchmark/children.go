package storagebenchmark

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
)

// childSet holds the Jobs, pods and claims of one benchmark.
type childSet struct {
	*children.SlotJobs
	claims []corev1.PersistentVolumeClaim
}

// listChildren reads the benchmark's children by label and keeps those it
// owns.
func (r *Reconciler) listChildren(ctx context.Context, b *benchv1.StorageBenchmark) (*childSet, error) {
	jobs, err := children.ListSlotJobs(ctx, r.Client, b, childLabels(b))
	if err != nil {
		return nil, err
	}
	var claims corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &claims, client.InNamespace(b.Namespace), client.MatchingLabels(childLabels(b))); err != nil {
		return nil, err
	}
	st := &childSet{SlotJobs: jobs}
	for _, c := range claims.Items {
		if children.OwnedBy(&c, b) {
			st.claims = append(st.claims, c)
		}
	}
	return st, nil
}

func headlineNote(b *benchv1.StorageBenchmark) string {
	if b.Status.Headline == "" {
		return ""
	}
	return ": " + b.Status.Headline + " (median so far)"
}
