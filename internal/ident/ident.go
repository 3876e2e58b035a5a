// Package ident splits identifiers into words, for full-text search (an
// identifier matches the words of a query) and for reading assignment
// keys in the secret scanner.
package ident

import (
	"strings"
	"unicode"
)

// Split splits camelCase, PascalCase, snake_case, kebab-case and
// path-like identifiers into lower-case words: "createFileUploads" →
// "create file uploads", "HTTPServer_v2" → "http server v 2"... digits
// and letters are separated.
func Split(s string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// Break before an upper-case letter that follows a lower-case
			// one, or that starts a word after an acronym (HTTPServer).
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				flush()
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			if i > 0 && !unicode.IsDigit(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			if i > 0 && unicode.IsDigit(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		}
	}
	flush()
	return strings.Join(words, " ")
}
