package storagebenchmark

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/benchwright/benchwright/internal/children"
)

func TestJobName(t *testing.T) {
	for _, tc := range []struct {
		bench              string
		rep, slot, attempt int
		nodes              int32
		want               string
	}{
		{bench: "db", nodes: 1, want: "db-r0"},
		{bench: "db", rep: 3, slot: 0, attempt: 2, nodes: 1, want: "db-r3-a2"},
		{bench: "db", rep: 3, slot: 1, nodes: 4, want: "db-r3-n1"},
		{bench: "db", rep: 3, slot: 1, attempt: 2, nodes: 4, want: "db-r3-n1-a2"},
		// Slot 0 of a multi-node run still names its slot.
		{bench: "db", rep: 0, slot: 0, nodes: 2, want: "db-r0-n0"},
		// 49 + len("-r0") == 52: kept as is.
		{bench: strings.Repeat("a", 49), nodes: 1, want: strings.Repeat("a", 49) + "-r0"},
		// 50 + 3 > 52: 40 characters of the name, a hash of the whole name, the suffix.
		{bench: strings.Repeat("a", 50), nodes: 1, want: strings.Repeat("a", 40) + "-160b4e43-r0"},
	} {
		if got := jobName(tc.bench, tc.rep, tc.slot, tc.attempt, tc.nodes); got != tc.want {
			t.Errorf("jobName(%q, rep=%d, slot=%d, attempt=%d, nodes=%d) = %q, want %q",
				tc.bench, tc.rep, tc.slot, tc.attempt, tc.nodes, got, tc.want)
		}
	}
}

func TestPVCNames(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{pvcName("db", 0, 0, 1), "db-data0"},
		{pvcName("db", 0, 2, 1), "db-data2"},
		{pvcName("db", 1, 2, 3), "db-n1-data2"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestChildNameLong(t *testing.T) {
	for _, tc := range []struct {
		name, base, suffix, want string
	}{
		{"hashed", strings.Repeat("a", 60), "-r0", strings.Repeat("a", 40) + "-11ee3912-r0"},
		// The cut falls after "-.": both are trimmed so the name never has "--" or ".-".
		{"trims separators", strings.Repeat("b", 38) + "-.x" + strings.Repeat("c", 20), "-r0", strings.Repeat("b", 38) + "-e6673d85-r0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, children.Name(tc.base, tc.suffix)); diff != "" {
				t.Errorf("childName (-want +got):\n%s", diff)
			}
		})
	}
}

// Long names stay valid Job names and label values, and never collide.
func TestChildNamesOfLongBenchmarks(t *testing.T) {
	prefix := strings.Repeat("storage.bench-", 5) // 70 characters
	names := []string{prefix + "one", prefix + "two", strings.Repeat("x", 253)}
	seen := map[string]string{}
	for _, bench := range names {
		for _, got := range []string{
			jobName(bench, 99, 127, 10, 128), jobName(bench, 0, 0, 0, 1),
			pvcName(bench, 127, 63, 128),
		} {
			if len(got) > children.MaxName {
				t.Errorf("%q: %d characters, want at most %d", got, len(got), children.MaxName)
			}
			if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
				t.Errorf("%q is not a valid object name: %v", got, errs)
			}
			if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
				t.Errorf("%q is not a valid label value: %v", got, errs)
			}
			if other, dup := seen[got]; dup {
				t.Errorf("%q is a child of both %q and %q", got, other, bench)
			}
			seen[got] = bench
		}
	}
}
