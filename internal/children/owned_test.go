package children

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/test/wrappers"
)

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := benchv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// owner is MPIBenchmark hpc/lat.
func owner() *benchv1.MPIBenchmark {
	return wrappers.MakeMPIBenchmark("lat", "hpc").UID("uid-lat").Obj()
}

// controllerRef makes a reference to a benchmark with the given UID.
func controllerRef(name, uid string, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: "benchwright.io/v1alpha1", Kind: "MPIBenchmark", Name: name, UID: types.UID(uid),
		Controller: ptr.To(controller), BlockOwnerDeletion: ptr.To(true),
	}
}

func configMap(refs ...metav1.OwnerReference) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "lat-mpi", Namespace: "hpc", OwnerReferences: refs},
		Data:       map[string]string{"steps.json": "{}"},
	}
}

func newKit(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) Kit {
	t.Helper()
	s := testScheme(t)
	b := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	c := b.Build()
	return Kit{Client: c, Reader: c, Scheme: s}
}

func TestCreateOwned(t *testing.T) {
	ctx := context.Background()
	ours := controllerRef("lat", "uid-lat", true)
	tests := []struct {
		name        string
		existing    []client.Object
		obj         client.Object
		wantCreated bool
		wantErr     *outcome.Outcome
		// wantRefs are the owner references of the stored object.
		wantRefs []metav1.OwnerReference
	}{
		{
			name:        "absent: created with the benchmark as controller",
			obj:         configMap(),
			wantCreated: true,
			wantRefs:    []metav1.OwnerReference{ours},
		},
		{
			name:     "already ours: a repeated reconcile",
			existing: []client.Object{configMap(ours)},
			obj:      configMap(),
			wantRefs: []metav1.OwnerReference{ours},
		},
		{
			name:     "someone else's ConfigMap of that name",
			existing: []client.Object{configMap()},
			obj:      configMap(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonNameConflict,
				Message: "ConfigMap lat-mpi already exists and does not belong to this benchmark: delete it or rename the benchmark"},
		},
		{
			name:     "controlled by an earlier benchmark of the same name",
			existing: []client.Object{configMap(controllerRef("lat", "uid-old", true))},
			obj:      configMap(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonNameConflict,
				Message: "ConfigMap lat-mpi already exists and does not belong to this benchmark: delete it or rename the benchmark"},
			wantRefs: []metav1.OwnerReference{controllerRef("lat", "uid-old", true)},
		},
		{
			name:     "owned by the benchmark but not as controller",
			existing: []client.Object{configMap(controllerRef("lat", "uid-lat", false))},
			obj:      configMap(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonNameConflict,
				Message: "ConfigMap lat-mpi already exists and does not belong to this benchmark: delete it or rename the benchmark"},
			wantRefs: []metav1.OwnerReference{controllerRef("lat", "uid-lat", false)},
		},
		{
			name:     "the conflict names the kind",
			existing: []client.Object{wrappers.MakeJob("lat-r0", "hpc").Obj()},
			obj:      wrappers.MakeJob("lat-r0", "hpc").Obj(),
			wantErr: &outcome.Outcome{Reason: benchv1.ReasonNameConflict,
				Message: "Job lat-r0 already exists and does not belong to this benchmark: delete it or rename the benchmark"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKit(t, nil, tt.existing...)
			created, err := k.CreateOwned(ctx, owner(), tt.obj)
			if created != tt.wantCreated {
				t.Errorf("created = %v, want %v", created, tt.wantCreated)
			}
			if tt.wantErr == nil && err != nil {
				t.Fatalf("CreateOwned: %v", err)
			}
			if tt.wantErr != nil {
				var oe *outcome.Outcome
				if !errors.As(err, &oe) {
					t.Fatalf("error %v (%T), want an outcome.Outcome", err, err)
				}
				if diff := cmp.Diff(tt.wantErr, oe); diff != "" {
					t.Errorf("outcome (-want +got):\n%s", diff)
				}
			}
			stored := tt.obj.DeepCopyObject().(client.Object)
			if err := k.Reader.Get(ctx, client.ObjectKeyFromObject(tt.obj), stored); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantRefs, stored.GetOwnerReferences()); diff != "" {
				t.Errorf("owner references of the stored object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateOwnedErrors(t *testing.T) {
	ctx := context.Background()
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "lat-mpi", errors.New("quota exceeded"))
	t.Run("a create error is returned as it is", func(t *testing.T) {
		k := newKit(t, &interceptor.Funcs{Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
			return forbidden
		}})
		created, err := k.CreateOwned(ctx, owner(), configMap())
		if created || !errors.Is(err, forbidden) {
			t.Errorf("CreateOwned = %v, %v; want false, %v", created, err, forbidden)
		}
		var oe *outcome.Outcome
		if errors.As(err, &oe) {
			t.Errorf("a transient error became an outcome.Outcome: %v", oe)
		}
	})
	t.Run("the existing object cannot be read", func(t *testing.T) {
		k := newKit(t, nil, configMap())
		gone := apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "lat-mpi")
		k.Reader = fake.NewClientBuilder().WithScheme(k.Scheme).Build() // another view, without it
		created, err := k.CreateOwned(ctx, owner(), configMap())
		if created || err == nil || err.Error() != gone.Error() {
			t.Errorf("CreateOwned = %v, %v; want false, %v", created, err, gone)
		}
	})
	t.Run("a child in the cache already is not created again", func(t *testing.T) {
		k := newKit(t, &interceptor.Funcs{Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
			t.Error("Create called for a child the cache holds")
			return nil
		}}, configMap(controllerRef("lat", "uid-lat", true)))
		if created, err := k.CreateOwned(ctx, owner(), configMap()); created || err != nil {
			t.Errorf("CreateOwned = %v, %v; want false, nil", created, err)
		}
	})
	t.Run("an object controlled by another owner is not taken over", func(t *testing.T) {
		k := newKit(t, nil)
		obj := configMap(controllerRef("other", "uid-other", true))
		created, err := k.CreateOwned(ctx, owner(), obj)
		var already *controllerutil.AlreadyOwnedError
		if created || !errors.As(err, &already) {
			t.Errorf("CreateOwned = %v, %v; want false, an AlreadyOwnedError", created, err)
		}
	})
}

func TestStale(t *testing.T) {
	ctx := context.Background()
	k := newKit(t, nil, owner())
	var cached benchv1.MPIBenchmark
	if err := k.Reader.Get(ctx, client.ObjectKey{Namespace: "hpc", Name: "lat"}, &cached); err != nil {
		t.Fatal(err)
	}
	stale, err := k.Stale(ctx, &cached)
	if err != nil || stale {
		t.Errorf("Stale of the current copy = %v, %v; want false, nil", stale, err)
	}
	fresh := cached.DeepCopy()
	fresh.Labels = map[string]string{"changed": "yes"}
	if err := k.Client.Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if fresh.ResourceVersion == cached.ResourceVersion {
		t.Fatalf("the update kept resourceVersion %s", fresh.ResourceVersion)
	}
	stale, err = k.Stale(ctx, &cached)
	if err != nil || !stale {
		t.Errorf("Stale of the old copy = %v, %v; want true, nil", stale, err)
	}
	if err := k.Client.Delete(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Stale(ctx, &cached); !apierrors.IsNotFound(err) {
		t.Errorf("Stale of a deleted object: error %v, want NotFound", err)
	}
}

func TestOwnedBy(t *testing.T) {
	tests := []struct {
		name string
		refs []metav1.OwnerReference
		want bool
	}{
		{"no owner", nil, false},
		{"controlled by the owner", []metav1.OwnerReference{controllerRef("lat", "uid-lat", true)}, true},
		{"owner, not controller", []metav1.OwnerReference{controllerRef("lat", "uid-lat", false)}, false},
		{"same name, other UID", []metav1.OwnerReference{controllerRef("lat", "uid-old", true)}, false},
		{"controller among other owners", []metav1.OwnerReference{
			controllerRef("pool", "uid-pool", false), controllerRef("lat", "uid-lat", true),
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OwnedBy(configMap(tt.refs...), owner()); got != tt.want {
				t.Errorf("OwnedBy = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLabelInt(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   int
	}{
		{"absent", nil, -1},
		{"zero", map[string]string{benchv1.RepetitionLabel: "0"}, 0},
		{"number", map[string]string{benchv1.RepetitionLabel: "12"}, 12},
		{"empty", map[string]string{benchv1.RepetitionLabel: ""}, -1},
		{"not a number", map[string]string{benchv1.RepetitionLabel: "r1"}, -1},
		{"another key", map[string]string{"benchwright.io/attempt": "3"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := wrappers.MakePod("", "").Labels(tt.labels).Obj()
			if got := LabelInt(obj, benchv1.RepetitionLabel); got != tt.want {
				t.Errorf("LabelInt = %d, want %d", got, tt.want)
			}
		})
	}
}
