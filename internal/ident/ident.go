// Package ident splits identifiers into words, for full-text search (an
// identifier matches the words of a query) and for reading assignment
// keys in the secret scanner.
package ident

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Split splits camelCase, PascalCase, snake_case, kebab-case and
// path-like identifiers into lower-case words: "createFileUploads" →
// "create file uploads", "HTTPServer_v2" → "http server v 2"... digits
// and letters are separated.
func Split(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	inWord := false // a word is open: the last rune written was a letter or digit
	// breakWord ends the open word; the next letter or digit starts one,
	// after a space.
	breakWord := func() { inWord = false }
	add := func(r rune) {
		if !inWord && b.Len() > 0 {
			b.WriteByte(' ')
		}
		inWord = true
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			return
		}
		b.WriteRune(unicode.ToLower(r))
	}
	prev := rune(-1) // the rune before r; -1 at the start
	for i, r := range s {
		switch {
		case !isLetter(r) && !isDigit(r):
			breakWord()
		case isUpper(r):
			// Break before an upper-case letter that follows a lower-case
			// one, or that starts a word after an acronym (HTTPServer).
			if prev >= 0 && (isLower(prev) || isDigit(prev) || (isUpper(prev) && nextIsLower(s, i, r))) {
				breakWord()
			}
			add(r)
		case isDigit(r):
			if prev >= 0 && !isDigit(prev) {
				breakWord()
			}
			add(r)
		default:
			if prev >= 0 && isDigit(prev) {
				breakWord()
			}
			add(r)
		}
		prev = r
	}
	return b.String()
}

// nextIsLower reports whether the rune after r, which starts at byte i
// of s, is a lower-case letter.
func nextIsLower(s string, i int, r rune) bool {
	j := i + utf8.RuneLen(r) // r is an upper-case letter: valid, so its length
	if j >= len(s) {
		return false
	}
	next, _ := utf8.DecodeRuneInString(s[j:])
	return isLower(next)
}

// isLetter, isDigit, isUpper and isLower are unicode.IsLetter, IsDigit,
// IsUpper and IsLower with an ASCII fast path.
func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}
