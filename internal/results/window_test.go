package results

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMergeWindows(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC) }
	old := []Window{{0, at(0), at(10)}, {1, at(20), at(30)}}
	// Repetition 1 collected again (a repeated reconcile), 2 added.
	got := MergeWindows(old, []Window{{2, at(40), at(50)}, {1, at(21), at(31)}})
	want := []Window{{0, at(0), at(10)}, {1, at(21), at(31)}, {2, at(40), at(50)}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("MergeWindows (-want +got):\n%s", d)
	}
	if len(old) != 2 || old[1].Start != at(20) {
		t.Errorf("old changed: %v", old)
	}
}

func TestWindowOverlaps(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2026, 11, 28, 12, 0, s, 0, time.UTC) }
	w := Window{0, at(10), at(20)}
	for _, tc := range []struct {
		o    Window
		want bool
	}{
		{Window{0, at(0), at(10)}, false}, // touching
		{Window{0, at(0), at(11)}, true},
		{Window{0, at(12), at(15)}, true}, // inside
		{Window{0, at(19), at(40)}, true},
		{Window{0, at(20), at(40)}, false},
	} {
		if got := w.Overlaps(tc.o); got != tc.want || tc.o.Overlaps(w) != tc.want {
			t.Errorf("%v overlaps %v = %v, want %v (both ways)", w, tc.o, got, tc.want)
		}
	}
}
