// Package jsonenc appends JSON values byte for byte as encoding/json
// encodes them, without reflection or allocation: strings (with HTML
// escaping), times (time.Time.MarshalJSON) and the test for floats
// encoding/json writes without an exponent. The hand-written encoders of
// memory views (memory/viewjson) and memory records (memory's
// appendRecord) are built on it.
package jsonenc

import (
	"math"
	"time"
	"unicode/utf8"
)

// jsonHex are the hexadecimal digits of AppendString's \u escapes.
const jsonHex = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as json.Marshal
// encodes a string (with its default HTML escaping): \" \\ \b \f \n
// \r \t, other bytes below 0x20 and < > & as \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029, the rest as is. It is
// encoding/json's appendString (Go 1.26, src/encoding/json/encode.go,
// BSD licence) for strings with escapeHTML set; calling json.Marshal
// for each string that needs an escape allocated a copy of every memory
// body `gloss check --json` prints (pprof: a tenth of the check, #12).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHex[b>>4], jsonHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// PlainFloat reports whether encoding/json writes f in the 'f' format
// (encoding/json floatEncoder: 0, or 1e-6 ≤ |f| < 1e21).
func PlainFloat(f float64) bool {
	a := math.Abs(f)
	return f == 0 || (a >= 1e-6 && a < 1e21)
}

// AppendTime appends t as t.MarshalJSON encodes it (RFC 3339 with
// nanoseconds, quoted) without its allocation: time.Time.AppendFormat
// with time.RFC3339Nano writes the same bytes (Go's time package formats
// both with appendFormatRFC3339), and where MarshalJSON fails (a year
// outside 0–9999, a zone offset of 24 hours or more: its
// appendStrictRFC3339 checks) MarshalJSON's error is returned. One
// MarshalJSON allocation per time was a tenth of `gloss check --json`'s
// CPU at 100,000 memories (pprof, #12).
func AppendTime(dst []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		_, err := t.MarshalJSON()
		return dst, err
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		_, err := t.MarshalJSON()
		return dst, err
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), nil
}
