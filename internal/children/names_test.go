package children

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The hashes are the first 8 hex digits of sha256(base), computed with
// sha256sum.
func TestChildName(t *testing.T) {
	const (
		// 64 characters each, differing in the last one only.
		tier1 = "osu-latency-c2d-standard-112-compact-placement-hostnetwork-tier1"
		tier2 = "osu-latency-c2d-standard-112-compact-placement-hostnetwork-tier2"
	)
	tests := []struct {
		name, base, suffix, want string
	}{
		{"short", "lat", "-r0", "lat-r0"},
		{"exactly 52", strings.Repeat("a", 49), "-r0", strings.Repeat("a", 49) + "-r0"},
		{"53 is shortened", strings.Repeat("a", 50), "-r0", strings.Repeat("a", 40) + "-160b4e43-r0"},
		{"long", tier1, "-r0", "osu-latency-c2d-standard-112-compact-pla-42664066-r0"},
		{"a long name differing at its end gets another hash", tier2, "-r0", "osu-latency-c2d-standard-112-compact-pla-4c7f770a-r0"},
		{"a longer suffix keeps less of the base", tier1, "-r12-a3", "osu-latency-c2d-standard-112-compact-42664066-r12-a3"},
		{"empty suffix", tier1, "", "osu-latency-c2d-standard-112-compact-placem-42664066"},
		{"a cut ending in a dot is trimmed", "osu-bw.c3-highcpu-176.europe-west4-a.v2.tier1-nightly-run", "-r0",
			"osu-bw.c3-highcpu-176.europe-west4-a.v2-7b9c62c8-r0"},
		{"a cut ending in dashes is trimmed", "imb-pingpong-c3-highcpu-176.compact--placement-gvnic-x", "-r1-a2",
			"imb-pingpong-c3-highcpu-176.compact-9839b03b-r1-a2"},
		{"253 characters", strings.Repeat("a", 253), "-r0", strings.Repeat("a", 40) + "-32859a3a-r0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Name(tt.base, tt.suffix)
			if got != tt.want {
				t.Errorf("Name(%q, %q) = %q, want %q", tt.base, tt.suffix, got, tt.want)
			}
			if len(got) > MaxName {
				t.Errorf("%q has %d characters, more than %d", got, len(got), MaxName)
			}
		})
	}
}

func TestLabelValue(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"short", "lat", "lat"},
		{"exactly 63", strings.Repeat("b", 63), strings.Repeat("b", 63)},
		{"64 is shortened", "osu-latency-c2d-standard-112-compact-placement-hostnetwork-tier1",
			"osu-latency-c2d-standard-112-compact-placement-hostnet-42664066"},
		{"a cut ending in dashes is trimmed", "osu-multi-lat-c3-highcpu-176-europe-west4-a-compact---placement-run7",
			"osu-multi-lat-c3-highcpu-176-europe-west4-a-compact-b1b3882b"},
		{"253 characters", strings.Repeat("a", 253), strings.Repeat("a", 54) + "-32859a3a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LabelValue(tt.in)
			if got != tt.want {
				t.Errorf("LabelValue(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
				t.Errorf("%q is not a label value: %v", got, errs)
			}
		})
	}
}

// Every length of a valid object name gives a valid DNS label within the
// limit, and names that differ give different children.
func TestChildNameAllLengths(t *testing.T) {
	seen := map[string]int{}
	for n := 1; n <= 253; n++ {
		base := strings.Repeat("x", n-1) + "y"
		for _, suffix := range []string{"-r0", "-r99-a10", "-mpi"} {
			got := Name(base, suffix)
			if len(got) > MaxName {
				t.Fatalf("Name(%d chars, %q) has %d characters", n, suffix, len(got))
			}
			if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
				t.Fatalf("Name(%d chars, %q) = %q: %v", n, suffix, got, errs)
			}
			if prev, dup := seen[got]; dup {
				t.Fatalf("Name of %d and %d characters are both %q", prev, n, got)
			}
			seen[got] = n
		}
		if got := LabelValue(base); len(got) > 63 || len(validation.IsValidLabelValue(got)) > 0 {
			t.Fatalf("LabelValue(%d chars) = %q is not a label value", n, got)
		}
	}
}
