package interference

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarks(t *testing.T) {
	overlaps := []Overlap{
		{Rep: Rep{"a", 0}, Machine: "m", With: []Rep{{"b", 0}, {"c", 1}}},
		{Rep: Rep{"a", 2}, Machine: "m", With: []Rep{{"b", 2}}},
		{Rep: Rep{"b", 0}, Machine: "m", With: []Rep{{"a", 0}}},
	}
	shares := []Share{
		{Rep: Rep{"a", 0}, Machine: "m", Others: 0.9, Disturbed: true},
		{Rep: Rep{"a", 1}, Machine: "m", Others: 0.02},
		{Rep: Rep{"d", 0}, Machine: "n", Others: 0.01},
	}
	got := Marks(overlaps, shares)
	want := map[string]Mark{
		"a": {OverlappedWith: []string{"b", "c"}, Overlapped: []int{0, 2}, Disturbed: []int{0}, MaxOthers: 0.9, Watched: true},
		"b": {OverlappedWith: []string{"a"}, Overlapped: []int{0}},
		"d": {MaxOthers: 0.01, Watched: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Marks (-want +got):\n%s", d)
	}
	if !got["a"].Marked() || !got["b"].Marked() || got["d"].Marked() {
		t.Errorf("Marked: a %v b %v d %v", got["a"].Marked(), got["b"].Marked(), got["d"].Marked())
	}
}
