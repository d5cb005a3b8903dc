package tuningprofile

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// conflictError is a child's name taken by an object that is not this
// profile's: it is never adopted.
type conflictError struct{ kind, namespace, name string }

func (e *conflictError) Error() string {
	return fmt.Sprintf("%s %s/%s already exists and does not belong to this TuningProfile: delete it or rename the profile", e.kind, e.namespace, e.name)
}

// applyChild server-side applies a child (one field owner), after checking
// that an object of its name is this profile's. A child whose cached copy
// already carries the same content hash is left alone.
func (r *Reconciler) applyChild(ctx context.Context, p *benchv1.TuningProfile, obj client.Object) error {
	gvk, err := apiutil.GVKForObject(obj, r.Scheme)
	if err != nil {
		return err
	}
	content, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	obj.GetAnnotations()[appliedHashAnnotation] = hash(string(content))
	key := client.ObjectKeyFromObject(obj)
	cached := obj.DeepCopyObject().(client.Object)
	if err := r.Get(ctx, key, cached); err == nil && ours(cached, p) &&
		cached.GetAnnotations()[appliedHashAnnotation] == obj.GetAnnotations()[appliedHashAnnotation] {
		return nil
	}
	// The cache holds only labelled objects: look for a foreign one around it.
	existing := obj.DeepCopyObject().(client.Object)
	switch err := r.kit().Reader.Get(ctx, key, existing); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case !ours(existing, p):
		return &conflictError{kind: gvk.Kind, namespace: key.Namespace, name: key.Name}
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	// Fields the typed object always carries but this controller does not set.
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	if err := r.Patch(ctx, u, client.Apply, client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", gvk.Kind, key, err)
	}
	return nil
}

// ours tells whether a child belongs to the profile (by UID).
func ours(obj client.Object, p *benchv1.TuningProfile) bool {
	return obj.GetAnnotations()[uidAnnotation] == string(p.UID)
}
