package tuningprofile

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/statusupdate"
)

// finalize undoes a deleted profile. Its tuner turns into a restorer (the
// settings say restore): the old pods restore on SIGTERM, the new ones restore
// whatever is left and report "restored" per node. The profile lets go once
// every selected node confirmed it (a deleted node has nothing to restore);
// until then it keeps its finalizer and says which nodes are not confirmed.
func (r *Reconciler) finalize(ctx context.Context, p *benchv1.TuningProfile) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(p, finalizer) {
		return ctrl.Result{}, nil
	}
	// A stale copy, whose finalizer an earlier reconcile already removed,
	// must not bring the restorer back for good.
	if stale, err := r.kit().Stale(ctx, p); apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil
	} else if err != nil || stale {
		return ctrl.Result{RequeueAfter: r.poll()}, err
	}
	if never, err := r.neverTuned(ctx, p); err != nil || never {
		if err != nil {
			return ctrl.Result{}, err
		}
		controllerutil.RemoveFinalizer(p, finalizer)
		return statusupdate.Quiet(ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, p)))
	}
	before := p.DeepCopy()
	confirmed, err := r.restore(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !confirmed {
		if _, err := r.writeStatus(ctx, p, before); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: r.poll()}, nil // after a conflict too
	}
	for _, obj := range []client.Object{&appsv1.DaemonSet{}, &corev1.ConfigMap{}} {
		if err := r.deleteChild(ctx, p, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(p, finalizer)
	return statusupdate.Quiet(ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, p)))
}

// restore applies the restoring tuner, reads its reports into the status and
// tells whether every node confirmed its restore.
func (r *Reconciler) restore(ctx context.Context, p *benchv1.TuningProfile) (bool, error) {
	data := restoreJSON(p)
	for _, c := range []client.Object{
		constructConfigMap(p, r.Namespace, data),
		constructTunerDaemonSet(p, tunerParams{
			namespace: r.Namespace, image: r.Image, settingsHash: hash(data),
			serviceAccount: cmp.Or(r.ServiceAccount, DefaultServiceAccount),
		}),
	} {
		var conflict *conflictError
		if err := r.applyChild(ctx, p, c); errors.As(err, &conflict) {
			msg := "the restore of the nodes cannot be confirmed: " + conflict.Error()
			setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonRestoring, msg)
			setCondition(p, benchv1.TuningConditionDegraded, metav1.ConditionTrue, benchv1.ReasonNameConflict, msg)
			return false, nil
		} else if err != nil {
			return false, err
		}
	}
	nodes, err := r.selectedNodes(ctx, p)
	if err != nil {
		return false, err
	}
	states, err := r.observe(ctx, p, nodes)
	if err != nil {
		return false, err
	}
	stragglers, err := r.stragglers(ctx, p)
	if err != nil {
		return false, err
	}
	return setRestoreStatus(p, states, stragglers), nil
}

// stragglers are the profile's pods of other generations still on a node
// that exists: until they end, a node's restore is not final (and on a node
// no longer selected, their own restore on SIGTERM is all there is).
func (r *Reconciler) stragglers(ctx context.Context, p *benchv1.TuningProfile) ([]string, error) {
	pods, err := r.tunerPods(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pod := range pods {
		if podGeneration(pod) == p.Generation {
			continue
		}
		gone, err := r.nodeGone(ctx, pod.Spec.NodeName)
		if err != nil {
			return nil, err
		}
		if !gone {
			out = append(out, fmt.Sprintf("%s: earlier tuner pod %s is still ending", pod.Spec.NodeName, pod.Name))
		}
	}
	return out, nil
}

// deleteChild deletes the profile's child of obj's kind, if it is the profile's.
func (r *Reconciler) deleteChild(ctx context.Context, p *benchv1.TuningProfile, obj client.Object) error {
	key := client.ObjectKey{Namespace: r.Namespace, Name: childName(p)}
	if err := r.kit().Reader.Get(ctx, key, obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !ours(obj, p) || !obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	return client.IgnoreNotFound(r.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)))
}

// neverTuned tells whether a campaign's profile was kept off its pool and
// never had a tuner: no restorer goes to nodes it had no right to tune.
func (r *Reconciler) neverTuned(ctx context.Context, p *benchv1.TuningProfile) (bool, error) {
	why, err := r.outsideCampaign(ctx, p)
	if err != nil || why == "" {
		return false, err
	}
	err = r.kit().Reader.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: childName(p)}, &appsv1.DaemonSet{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

func (r *Reconciler) nodeGone(ctx context.Context, name string) (bool, error) {
	if name == "" {
		return true, nil // never scheduled: nothing to restore
	}
	err := r.Get(ctx, client.ObjectKey{Name: name}, &corev1.Node{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}
