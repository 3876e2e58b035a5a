// Package ident splits identifiers into words, for full-text search (an
// identifier matches the words of a query) and for reading assignment
// keys in the secret scanner.
package ident

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Split splits camelCase, PascalCase, snake_case, kebab-case and
// path-like identifiers into lower-case words: "createFileUploads" →
// "create file uploads", "HTTPServer_v2" → "http server v 2"... digits
// and letters are separated.
func Split(s string) string {
	if IsASCII(s) {
		return splitASCII(s)
	}
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

// IsASCII reports whether every byte of s is < 0x80 (s is ASCII text).
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ASCII character classes of splitASCII.
const (
	asciiOther = iota
	asciiLower
	asciiUpper
	asciiDigit
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = asciiLower
		t[c-'a'+'A'] = asciiUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = asciiDigit
	}
	return t
}()

// splitASCII is Split for s all ASCII, a byte at a time with the same
// rules (TestSplitSameAsReference, FuzzSplitSameAsReference).
func splitASCII(s string) string {
	out := make([]byte, 0, len(s)+len(s)/4)
	inWord := false
	prev := uint8(asciiOther) // the class of the byte before c
	for i := 0; i < len(s); i++ {
		c := s[i]
		cl := asciiClass[c]
		switch cl {
		case asciiOther:
			inWord = false
			prev = cl
			continue
		case asciiUpper:
			if i > 0 && (prev == asciiLower || prev == asciiDigit || prev == asciiUpper && i+1 < len(s) && asciiClass[s[i+1]] == asciiLower) {
				inWord = false
			}
			c += 'a' - 'A'
		case asciiDigit:
			if i > 0 && prev != asciiDigit {
				inWord = false
			}
		default: // lower
			if prev == asciiDigit {
				inWord = false
			}
		}
		if !inWord && len(out) > 0 {
			out = append(out, ' ')
		}
		inWord = true
		out = append(out, c)
		prev = cl
	}
	if len(out) == 0 {
		return ""
	}
	// out is not written again: the string shares its bytes, as
	// strings.Builder.String does.
	return unsafe.String(&out[0], len(out))
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
