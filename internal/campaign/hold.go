package campaign

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// HolderAnnotation names, on a pool, the tuning whose cell runs on it now:
// the pool is not idle (its TTL waits), and a shared pool's other cells wait
// for it to be cleared. Argo's parallelism alone does not keep them apart
// (argo retry starts a pool's failed cells at once), and a cell's untuned
// benchmarks must never run beside another cell's tuning.
const HolderAnnotation = benchv1.CampaignCellAnnotation

// holdPool makes the cell the only one on its shared pool, waiting (up to
// PoolTimeout) while another cell holds it. The write is a patch with the
// pool's resourceVersion: two cells cannot both take it.
func (r *Runner) holdPool(ctx context.Context, name, tuning string, logf func(string, ...any)) error {
	o := r.emptyObject("BenchmarkPool", name, "")
	var lastHolder string
	err := r.waitFor(ctx, o, r.PoolTimeout, logf, func() (bool, error) {
		holder := o.GetAnnotations()[HolderAnnotation]
		if holder != "" && holder != tuning {
			if holder != lastHolder {
				logf("BenchmarkPool %s is shared: waiting for the cell of tuning %s to end", name, holder)
				lastHolder = holder
			}
			return false, nil
		}
		err := r.setHolder(ctx, o, tuning)
		if apierrors.IsConflict(err) {
			return false, nil // read again
		}
		return err == nil, err
	})
	if err == nil {
		logf("BenchmarkPool %s held by this cell (%s=%s)", name, HolderAnnotation, tuning)
	}
	return r.explainGone(ctx, o, err)
}

// unholdPool clears the holder when it is this cell.
func (r *Runner) unholdPool(ctx context.Context, name, tuning string) error {
	for {
		o := r.emptyObject("BenchmarkPool", name, "")
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(o), o); apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		if o.GetAnnotations()[HolderAnnotation] != tuning {
			return nil
		}
		if err := r.setHolder(ctx, o, ""); !apierrors.IsConflict(err) {
			return err
		}
	}
}

// setHolder writes the holder annotation (or removes it, for ""), failing
// with a conflict when the pool changed since o was read.
func (r *Runner) setHolder(ctx context.Context, o *unstructured.Unstructured, tuning string) error {
	before := o.DeepCopy()
	ann := o.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	if tuning == "" {
		delete(ann, HolderAnnotation)
	} else {
		ann[HolderAnnotation] = tuning
	}
	o.SetAnnotations(ann)
	if err := r.Client.Patch(ctx, o, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		if !apierrors.IsConflict(err) {
			return fmt.Errorf("marking shared BenchmarkPool %s: %w", o.GetName(), err)
		}
		return err
	}
	return nil
}
