package statusupdate

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// AddFinalizer puts finalizer on obj, unless it is there, with a JSON patch
// that appends it to the API server's list: no resourceVersion, so no
// conflict with other writers, and their finalizers stay (the copy may be
// stale). Where the server's object has no list yet, a second patch makes
// it. obj becomes the API server's copy.
func AddFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	if controllerutil.ContainsFinalizer(obj, finalizer) {
		return nil
	}
	uid := jsonOp{Op: "test", Path: "/metadata/uid", Value: obj.GetUID()}
	err := jsonPatch(ctx, c, obj, uid, jsonOp{Op: "add", Path: "/metadata/finalizers/-", Value: finalizer})
	if err == nil || apierrors.IsNotFound(err) || !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) && !apierrors.IsInternalError(err) {
		return err
	}
	// No list to append to.
	return jsonPatch(ctx, c, obj, uid, jsonOp{Op: "add", Path: "/metadata/finalizers", Value: []string{finalizer}})
}

type jsonOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

func jsonPatch(ctx context.Context, c client.Client, obj client.Object, ops ...jsonOp) error {
	data, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	return c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, data))
}

// Quiet turns a conflict into a requeue after ConflictRetry, not an error:
// the next reconcile reads afresh.
func Quiet(res ctrl.Result, err error) (ctrl.Result, error) {
	if apierrors.IsConflict(err) {
		return ctrl.Result{RequeueAfter: ConflictRetry}, nil
	}
	return res, err
}
