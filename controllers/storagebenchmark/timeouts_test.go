package storagebenchmark

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestUnboundClaims(t *testing.T) {
	claim := func(name string, ph corev1.PersistentVolumeClaimPhase, class *string) corev1.PersistentVolumeClaim {
		c := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Spec.StorageClassName, c.Status.Phase = class, ph
		return c
	}
	got := unboundClaims([]corev1.PersistentVolumeClaim{
		claim("db-data2", corev1.ClaimPending, ptr.To("premium-rwo")),
		claim("db-data0", corev1.ClaimBound, ptr.To("premium-rwo")),
		claim("db-data1", "", nil),
		claim("db-data3", corev1.ClaimLost, ptr.To("standard")),
	})
	want := []string{
		"db-data1 (Pending, the default storage class)",
		"db-data2 (Pending, storage class premium-rwo)",
		"db-data3 (Lost, storage class standard)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unboundClaims (-want +got):\n%s", diff)
	}
	if got := unboundClaims([]corev1.PersistentVolumeClaim{claim("a", corev1.ClaimBound, nil)}); got != nil {
		t.Errorf("all bound: %v, want nil", got)
	}
}
