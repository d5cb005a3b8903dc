package figure

import (
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	var got []string
	for _, tk := range (log2Ticks{}).Ticks(1, 4<<20) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := "1 4 16 64 256 1K 4K 16K 64K 256K 1M 4M"; strings.Join(got, " ") != want {
		t.Errorf("log2 labels %q, want %q", got, want)
	}
	got = nil
	for _, tk := range (log10Ticks{}).Ticks(0.2, 30000) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := "1 10 100 1000 10k"; strings.Join(got, " ") != want {
		t.Errorf("log10 labels %q, want %q", got, want)
	}
	got = nil
	for _, tk := range (log10Ticks{}).Ticks(12, 30) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := "15 20 25 30"; strings.Join(got, " ") != want {
		t.Errorf("log10 labels within a decade %q, want %q", got, want)
	}
	got = nil
	for _, tk := range (linearTicks{}).Ticks(0, 26000) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := "0 5000 10k 15k 20k 25k"; strings.Join(got, " ") != want {
		t.Errorf("linear labels %q, want %q", got, want)
	}
}

func TestWrapLabel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"randread-4k", 20, "randread-4k"},
		{"s3-3-network-latency (c2-standard-60)", 22, "s3-3-network-latency\n(c2-standard-60)"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 10, "aaaaaaaaaa\naaaaaaaaaa\naaaaaaaaa…"},
	} {
		if got := wrapLabel(tc.in, tc.n, 3); got != tc.want {
			t.Errorf("wrapLabel(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestFiveNumbers(t *testing.T) {
	if got := fiveNumbers([]float64{5, 1, 4, 2, 3}); got != [5]float64{1, 2, 3, 4, 5} {
		t.Errorf("fiveNumbers = %v", got)
	}
	if got := fiveNumbers([]float64{1, 2, 3, 4}); got != [5]float64{1, 1.75, 2.5, 3.25, 4} {
		t.Errorf("fiveNumbers = %v", got)
	}
}
