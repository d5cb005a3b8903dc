package benchmarkpool

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Pools are reconciled in parallel, and a pool may read a node before
// another pool claimed it: claiming or releasing from that stale copy
// conflicts instead of taking the node from its pool.
func TestNodeMarksFromAStaleCopyConflict(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{benchv1.BenchmarkNodeLabel: "true"}}}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(n).Build()
	r := &Reconciler{Client: c}
	if err := c.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
		t.Fatal(err)
	}
	stale := n.DeepCopy()
	if err := r.markNode(ctx, n, "a", true); err != nil {
		t.Fatal(err)
	}
	fresh := n.DeepCopy()
	if err := r.markNode(ctx, stale, "b", true); !apierrors.IsConflict(err) {
		t.Errorf("claiming from a stale copy: %v, want a conflict", err)
	}
	if err := r.releaseNode(ctx, fresh.DeepCopy(), "a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(n), n); err != nil {
		t.Fatal(err)
	}
	if err := r.markNode(ctx, n, "b", true); err != nil {
		t.Fatal(err)
	}
	if err := r.releaseNode(ctx, fresh, "a"); !apierrors.IsConflict(err) {
		t.Errorf("releasing from a stale copy: %v, want a conflict", err)
	}
	var got corev1.Node
	if err := c.Get(ctx, client.ObjectKeyFromObject(n), &got); err != nil || got.Labels[benchv1.PoolLabel] != "b" {
		t.Errorf("node labelled %v (%v), want pool b", got.Labels, err)
	}
}
