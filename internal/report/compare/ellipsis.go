package compare

import (
	"unicode/utf8"
)

// Ellipsis shortens s to n runes.
func Ellipsis(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
