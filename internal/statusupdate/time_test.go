package statusupdate

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMetaTime(t *testing.T) {
	in := time.Date(2025, 3, 4, 12, 30, 15, 987654321, time.FixedZone("CET", 3600))
	want := metav1.NewTime(time.Date(2025, 3, 4, 11, 30, 15, 0, time.UTC))
	got := MetaTime(in)
	if !got.Equal(&want) || got.Location() != time.UTC {
		t.Errorf("MetaTime(%v) = %v, want %v", in, got, want)
	}
}
