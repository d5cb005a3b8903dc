package mpi

import "strings"

// Helpers the OSU, IMB and IOR parsers share.

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// plainDecimal reports whether s is a figure as OMB and IMB print them
// ("%.2f"): digits, then optionally a point and digits, without sign or
// exponent.
func plainDecimal(s string) bool {
	intPart, frac, _ := strings.Cut(s, ".")
	return allDigits(intPart) && (frac == "" || allDigits(frac))
}
