package integration

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/test/specs"
)

// TestInvalidSpecsAreRejected creates each invalid spec and expects the API
// server to refuse it with a message that says what to fix.
func TestInvalidSpecsAreRejected(t *testing.T) {
	if len(specs.Invalid) < 30 {
		t.Fatalf("only %d invalid cases", len(specs.Invalid))
	}
	ctx := testContext(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "invalid-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for i, tc := range specs.Invalid {
		t.Run(tc.Name, func(t *testing.T) {
			obj := specs.Object(t, tc.Kind, fmt.Sprintf("invalid-%d", i), ns.Name, tc.Spec)
			err := k8sClient.Create(ctx, obj)
			if err == nil {
				_ = k8sClient.Delete(ctx, obj)
				t.Fatalf("accepted; want rejection with %q", tc.Want)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("got %v, want an Invalid error", err)
			}
			if !strings.Contains(err.Error(), tc.Want) {
				t.Errorf("message does not say what to fix:\n got: %v\nwant: %q", err, tc.Want)
			}
		})
	}
}

// TestBaseSpecsAreValid guards the table: the specs the cases start from are
// accepted, so each rejection is due to what the case changed.
func TestBaseSpecsAreValid(t *testing.T) {
	ctx := testContext(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "base-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for kind, spec := range specs.Bases {
		obj := specs.Object(t, kind, "base-"+strings.ToLower(kind), ns.Name, spec)
		if err := k8sClient.Create(ctx, obj, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		_ = k8sClient.Delete(ctx, obj)
	}
}
