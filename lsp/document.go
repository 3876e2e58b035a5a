package lsp

import (
	"fmt"
	"unicode/utf8"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
)

// Position encodings.
const (
	encUTF16 = "utf-16"
	encUTF8  = "utf-8"
)

// text is an immutable document snapshot: content with its line index.
type text struct {
	src   []byte
	lines *index.Lines
}

func newText(src []byte) *text { return &text{src: src, lines: index.NewLines(src)} }

// offset converts a position in encoding enc to a byte offset. It fails
// when the line is past the end of the document; a character past the end
// of its line clamps to the line end (as LSP requires).
func (t *text) offset(p Position, enc string) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("negative position %d:%d", p.Line, p.Character)
	}
	if p.Line >= t.lines.Count() {
		// One past the last line at character 0 is the end of the text.
		if p.Line == t.lines.Count() && p.Character == 0 {
			return len(t.src), nil
		}
		return 0, fmt.Errorf("position %d:%d is past the end of the document (%d lines)", p.Line, p.Character, t.lines.Count())
	}
	if enc == encUTF8 {
		start, end := t.lines.Start(p.Line), t.lines.End(p.Line)
		off := start + p.Character
		if off > end {
			off = end
		}
		// Never split a UTF-8 sequence.
		for off > start && off < end && !utf8.RuneStart(t.src[off]) {
			off--
		}
		return off, nil
	}
	off, _ := t.lines.Offset(p.Line, p.Character)
	return off, nil
}

// position converts a byte offset to a position in encoding enc.
func (t *text) position(off int, enc string) Position {
	off = max(0, min(off, len(t.src)))
	if enc == encUTF8 {
		l := t.lines.LineOf(off)
		return Position{Line: l, Character: off - t.lines.Start(l)}
	}
	l, c := t.lines.Position(off)
	return Position{Line: l, Character: c}
}

// lineRange returns the range of 0-based lines first..last (clamped to the
// document), from the first non-blank character of first to the end of
// last.
func (t *text) lineRange(first, last int, enc string) Range {
	n := t.lines.Count()
	first = max(0, min(first, n-1))
	last = max(first, min(last, n-1))
	s := t.lines.Start(first)
	for s < t.lines.End(first) && (t.src[s] == ' ' || t.src[s] == '\t') {
		s++
	}
	return Range{Start: t.position(s, enc), End: t.position(t.lines.End(last), enc)}
}

// apply returns the text after one content change.
func (t *text) apply(c contentChange, enc string) (*text, error) {
	if c.Range == nil {
		return newText([]byte(c.Text)), nil
	}
	s, err := t.offset(c.Range.Start, enc)
	if err != nil {
		return nil, err
	}
	e, err := t.offset(c.Range.End, enc)
	if err != nil {
		return nil, err
	}
	if e < s {
		return nil, fmt.Errorf("change range end %v is before its start %v", c.Range.End, c.Range.Start)
	}
	out := make([]byte, 0, len(t.src)-(e-s)+len(c.Text))
	out = append(out, t.src[:s]...)
	out = append(out, c.Text...)
	out = append(out, t.src[e:]...)
	return newText(out), nil
}

// document is an open editor document. Its fields are replaced, never
// mutated in place, under Server.mu; readers copy the pointer.
type document struct {
	uri     string
	path    string // absolute file path
	version int
	text    *text
}

// uriToPath and pathToURI convert between file:// URIs and absolute
// paths (api.URIToPath, api.PathToURI).
var uriToPath, pathToURI = api.URIToPath, api.PathToURI
