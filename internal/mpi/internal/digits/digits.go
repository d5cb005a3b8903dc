// Package digits holds the checks of figures as text that the OSU, IMB and
// IOR parsers share.
package digits

import "strings"

// All reports whether s is one or more ASCII digits.
func All(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// PlainDecimal reports whether s is a figure as OMB and IMB print them
// ("%.2f"): digits, then optionally a point and digits, without sign or
// exponent.
func PlainDecimal(s string) bool {
	intPart, frac, _ := strings.Cut(s, ".")
	return All(intPart) && (frac == "" || All(frac))
}
