package bearer

import "testing"

func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{
		"Bearer abc":     "abc",
		"bearer abc":     "abc",
		"  Bearer  abc ": "abc",
		"Bearer":         "",
		"Bearer ":        "",
		"Basic abc":      "",
		"abc":            "",
		"":               "",
	} {
		got, ok := Token(header)
		if got != want || ok != (want != "") {
			t.Errorf("Token(%q) = %q, %v; want %q, %v", header, got, ok, want, want != "")
		}
	}
}
