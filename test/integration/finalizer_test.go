package integration

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/benchwright/benchwright/internal/statusupdate"
)

// A finalizer added from a stale copy neither conflicts nor drops the
// finalizers others added since.
func TestAddFinalizerFromAStaleCopy(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "fin-")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: ns}}
	if err := k8sClient.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	stale := cm.DeepCopy()
	cm.Finalizers = []string{"example.com/other"}
	if err := k8sClient.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cm.Finalizers = nil
		_ = k8sClient.Update(context.Background(), cm)
	})
	for range 2 { // the second finds it there
		if err := statusupdate.AddFinalizer(ctx, k8sClient, stale, "benchwright.io/test"); err != nil {
			t.Fatalf("AddFinalizer from a stale copy: %v", err)
		}
	}
	var got corev1.ConfigMap
	if err := k8sClient.Get(ctx, clientKey(cm), &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com/other", "benchwright.io/test"}; !slices.Equal(got.Finalizers, want) {
		t.Errorf("finalizers %v, want %v", got.Finalizers, want)
	}
	cm = &got

	// An object with no finalizers yet gets the list.
	bare := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: ns}}
	if err := k8sClient.Create(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if err := statusupdate.AddFinalizer(ctx, k8sClient, bare, "benchwright.io/test"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bare.Finalizers = nil
		_ = k8sClient.Update(context.Background(), bare)
	})
	if want := []string{"benchwright.io/test"}; !slices.Equal(bare.Finalizers, want) {
		t.Errorf("finalizers of a bare object %v, want %v", bare.Finalizers, want)
	}
}
