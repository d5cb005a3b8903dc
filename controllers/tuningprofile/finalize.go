package tuningprofile

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// finalize undoes a deleted profile: it deletes the DaemonSet and the
// ConfigMap, waits until every tuner pod is gone (each restores its node on
// SIGTERM before it ends), then lets the profile go.
func (r *Reconciler) finalize(ctx context.Context, p *benchv1.TuningProfile) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(p, finalizer) {
		return ctrl.Result{}, nil
	}
	for _, obj := range []client.Object{&appsv1.DaemonSet{}, &corev1.ConfigMap{}} {
		if err := r.deleteChild(ctx, p, obj); err != nil {
			return ctrl.Result{}, err
		}
	}
	pods, err := r.tunerPods(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	var left []string
	for _, pod := range pods {
		gone, err := r.nodeGone(ctx, pod.Spec.NodeName)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !gone { // a pod on a deleted node restores nothing: it is not waited for
			left = append(left, pod.Name+" on "+pod.Spec.NodeName)
		}
	}
	if len(left) > 0 {
		orig := p.Status.DeepCopy()
		setCondition(p, benchv1.TuningConditionTuned, metav1.ConditionFalse, benchv1.ReasonRestoring,
			fmt.Sprintf("restoring the original values: waiting for %d tuner pod(s) to end: %s", len(left), strings.Join(left, ", ")))
		if err := r.writeStatus(ctx, p, orig); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: r.poll()}, nil
	}
	controllerutil.RemoveFinalizer(p, finalizer)
	return ctrl.Result{}, r.Update(ctx, p)
}

// deleteChild deletes the profile's child of obj's kind, if it is the profile's.
func (r *Reconciler) deleteChild(ctx context.Context, p *benchv1.TuningProfile, obj client.Object) error {
	key := client.ObjectKey{Namespace: r.Namespace, Name: childName(p)}
	if err := r.Kit().Reader.Get(ctx, key, obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !ours(obj, p) || !obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	return client.IgnoreNotFound(r.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)))
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
