package main

import (
	"fmt"
	"strings"
)

// termSafe returns s with every character that a terminal would act on
// instead of print replaced by a visible escape: C0 controls (ESC starts
// colour, cursor and OSC 8 hyperlink / title-setting sequences, CR
// overwrites a line, BS erases), DEL, C1 controls (U+0080..U+009F, CSI and
// OSC among them) and the Unicode bidirectional overrides and isolates
// (U+202A..U+202E, U+2066..U+2069, the "Trojan Source" reordering). \t is
// kept, and \n too when keepNewline is set (bodies); titles, tags, paths
// and symbols are single lines. Memory text comes from other people
// (project memory files, agents), so list and show print it this way;
// --json output is unchanged (JSON escapes controls itself).
func termSafe(s string, keepNewline bool) string {
	clean := true
	for _, r := range s {
		if needsEscape(r, keepNewline) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !needsEscape(r, keepNewline) {
			b.WriteRune(r)
			continue
		}
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func needsEscape(r rune, keepNewline bool) bool {
	switch {
	case r == '\t':
		return false
	case r == '\n':
		return !keepNewline
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
