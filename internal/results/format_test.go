package results

import "testing"

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{41234.7: "41,235", -1234567: "-1,234,567", 123.456: "123.5", 12.345: "12.35", 1.23456: "1.235", 0.01234: "0.01234", 0: "0"} {
		if got := FormatValue(v); got != want {
			t.Errorf("FormatValue(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestFormatCV(t *testing.T) {
	if got := FormatCV(Stats{N: 1, CV: 3}); got != "-" {
		t.Errorf("one repetition: %q, want -", got)
	}
	if got := FormatCV(Stats{N: 5, CV: 2.345}); got != "2.3%" {
		t.Errorf("five repetitions: %q, want 2.3%%", got)
	}
}
