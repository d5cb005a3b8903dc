package compare

import (
	"slices"
	"testing"
)

func TestOrderedValues(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"10pd", "1pd", "10pd"}, []string{"10pd", "1pd"}},
		{[]string{"16", "4", noValue, "8"}, []string{noValue, "4", "8", "16"}},
		{[]string{"b", "a"}, []string{"b", "a"}},
	} {
		if got := orderedValues(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("orderedValues(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
