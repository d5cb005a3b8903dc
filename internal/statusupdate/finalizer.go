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
// that appends it: no resourceVersion, so no conflict with other writers,
// and their finalizers stay. obj becomes the API server's copy.
func AddFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	if controllerutil.ContainsFinalizer(obj, finalizer) {
		return nil
	}
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	ops := []op{{Op: "test", Path: "/metadata/uid", Value: obj.GetUID()}}
	if len(obj.GetFinalizers()) == 0 {
		ops = append(ops, op{Op: "add", Path: "/metadata/finalizers", Value: []string{finalizer}})
	} else {
		ops = append(ops, op{Op: "add", Path: "/metadata/finalizers/-", Value: finalizer})
	}
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
