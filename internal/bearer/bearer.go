// Package bearer reads the token of an HTTP Authorization header.
package bearer

import "strings"

// Token is the token of an "Authorization: Bearer TOKEN" header, as the API
// server's bearer-token authenticator reads it.
func Token(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
