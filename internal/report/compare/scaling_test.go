package compare

import (
	"testing"
)

func TestWithoutCount(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{
		{"write-buffered-4", 4, "write-buffered"},
		{"real-x-knl-none-ior-fpp-2", 2, "real-x-knl-none-ior-fpp"},
		{"ior_np16_shared", 16, "ior_shared"},
		{"read-4k-qd4", 4, "read-4k-qd4"}, // 4k and qd4 are no counts
		{"4", 4, ""},
		{"c2-standard-8-dd", 1, "c2-standard-8-dd"},
	} {
		if got := withoutCount(tc.name, tc.n); got != tc.want {
			t.Errorf("withoutCount(%q, %d) = %q, want %q", tc.name, tc.n, got, tc.want)
		}
	}
}
