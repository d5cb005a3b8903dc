package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// release deletes the cell's tuning, waits for its nodes to be restored
// (the profile gone), then deletes its pool when pool says so.
func (r *Runner) release(ctx context.Context, cell Cell, pool bool, logf func(string, ...any)) error {
	name := r.Matrix.PoolName(r.Workflow, cell)
	var errs []error
	if cell.Tuned() {
		errs = append(errs, r.deleteOwn(ctx, "TuningProfile", name, logf))
	}
	if pool {
		errs = append(errs, r.deleteOwn(ctx, "BenchmarkPool", name, logf))
	}
	return errors.Join(errs...)
}

// deleteOwn deletes a pool or tuning of this Workflow's (by its UID), and
// waits for it to be gone; one it did not make is left alone.
func (r *Runner) deleteOwn(ctx context.Context, kind, name string, logf func(string, ...any)) error {
	o := r.emptyObject(kind, name, "")
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(o), o); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if o.GetAnnotations()[benchv1.WorkflowUIDAnnotation] != string(r.Workflow.UID) {
		logf("%s %s is not this Workflow's: left alone", kind, name)
		return nil
	}
	return r.deleteAndWait(ctx, o, logf)
}

// ReleasePool deletes a pool its tunings shared, once they are done.
func (r *Runner) ReleasePool(ctx context.Context, pool string) error {
	logf := stepLog(r.Log)
	for _, c := range r.Matrix.Cells() {
		if c.Pool.Name == pool {
			return r.deleteOwn(ctx, "BenchmarkPool", r.Matrix.PoolName(r.Workflow, c), logf)
		}
	}
	return fmt.Errorf("no pool %s in the campaign: the pools are %s", pool, names(r.Matrix.Pools))
}

// ReleaseAll deletes every tuning, then every pool, of the Workflow (by its
// campaign label and UID), and waits for them to be gone: the campaign's
// exit handler, whatever became of its cells.
func ReleaseAll(ctx context.Context, c client.Client, wf Workflow, log io.Writer) error {
	logf := stepLog(log)
	r := &Runner{Client: c, Workflow: wf, Log: log, Poll: time.Second, ReleaseTimeout: 15 * time.Minute}
	if d, ok := ctx.Deadline(); ok {
		r.ReleaseTimeout = time.Until(d)
	}
	var errs []error
	for _, kind := range []string{"TuningProfile", "BenchmarkPool"} {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(benchv1.GroupVersion.String())
		list.SetKind(kind + "List")
		if err := c.List(ctx, list, client.MatchingLabels{benchv1.CampaignLabel: wf.Name}); err != nil {
			return fmt.Errorf("listing the campaign's %ss: %w", kind, err)
		}
		n := 0
		for i := range list.Items {
			o := &list.Items[i]
			if o.GetAnnotations()[benchv1.WorkflowUIDAnnotation] != string(wf.UID) {
				continue // another Workflow of the same name's, or made by hand
			}
			n++
			errs = append(errs, r.deleteAndWait(ctx, o, logf))
		}
		logf("%d %s(s) of Workflow %s released", n, kind, wf.Name)
	}
	return errors.Join(errs...)
}

// deleteAndWait deletes o and waits for it to be gone.
func (r *Runner) deleteAndWait(ctx context.Context, o *unstructured.Unstructured, logf func(string, ...any)) error {
	err := r.Client.Delete(ctx, o)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting %s %s: %w", o.GetKind(), o.GetName(), err)
	}
	logf("%s %s deleted: waiting for it to be gone", o.GetKind(), o.GetName())
	if err := r.waitGone(ctx, o, logf); err != nil {
		return err
	}
	logf("%s %s gone", o.GetKind(), o.GetName())
	return nil
}
