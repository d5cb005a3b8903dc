package children

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/crashpoint"
	"github.com/benchwright/benchwright/internal/outcome"
)

// Kit is what the controllers need to create and check their children.
type Kit struct {
	Client client.Client
	// Reader reads around the cache (the cache holds only benchwright's
	// labelled children, so a foreign object that blocks a name is seen here).
	Reader client.Reader
	Scheme *runtime.Scheme
}

// NewKit is the Kit of a reconciler's client and scheme, reading around the
// cache through apiReader when it is set, else through c.
func NewKit(c client.Client, apiReader client.Reader, scheme *runtime.Scheme) Kit {
	reader := client.Reader(c)
	if apiReader != nil {
		reader = apiReader
	}
	return Kit{Client: c, Reader: reader, Scheme: scheme}
}

// CreateOwned creates a child with owner as its controller. An object of that
// name the owner does not control is a conflict a person must resolve (an
// Outcome NameConflict); one it controls already is fine (a repeated
// reconcile). created tells whether this call made it.
func (k Kit) CreateOwned(ctx context.Context, owner, obj client.Object) (created bool, err error) {
	if err := controllerutil.SetControllerReference(owner, obj, k.Scheme); err != nil {
		return false, err
	}
	// A child an earlier reconcile made is in the cache: found there it costs
	// no request, where a create would fail with AlreadyExists and be read
	// around the cache (two requests for nothing on every reconcile).
	cached := obj.DeepCopyObject().(client.Object)
	if err := k.Client.Get(ctx, client.ObjectKeyFromObject(obj), cached); err == nil && OwnedBy(cached, owner) {
		return false, nil
	}
	err = k.Client.Create(ctx, obj)
	if err == nil {
		crashpoint.Reach(crashpoint.ChildCreated)
	}
	if !apierrors.IsAlreadyExists(err) {
		return err == nil, err
	}
	existing := obj.DeepCopyObject().(client.Object)
	if err := k.Reader.Get(ctx, client.ObjectKeyFromObject(obj), existing); err != nil {
		return false, err
	}
	if !OwnedBy(existing, owner) {
		return false, outcome.Fail(benchv1.ReasonNameConflict, fmt.Sprintf(
			"%s %s already exists and does not belong to this benchmark: delete it or rename the benchmark", k.kindOf(obj), obj.GetName()))
	}
	return false, nil
}

func (k Kit) kindOf(obj client.Object) string {
	if gvk, err := apiutil.GVKForObject(obj, k.Scheme); err == nil {
		return gvk.Kind
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")
}

// Stale tells whether the cache's copy of obj is older than the API server's:
// a reconcile that would create children from a stale view must look again.
func (k Kit) Stale(ctx context.Context, obj client.Object) (bool, error) {
	fresh := obj.DeepCopyObject().(client.Object)
	if err := k.Reader.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
		return false, err
	}
	return fresh.GetResourceVersion() != obj.GetResourceVersion(), nil
}

// OwnedBy tells whether owner is obj's controller.
func OwnedBy(obj, owner metav1.Object) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == owner.GetUID()
}

// LabelInt reads an integer label; -1 when absent or not a number.
func LabelInt(obj metav1.Object, key string) int {
	n, err := strconv.Atoi(obj.GetLabels()[key])
	if err != nil {
		return -1
	}
	return n
}
