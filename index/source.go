package index

import (
	"bytes"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// Range is a region of a file. Lines are 0-based; StartCol and EndCol are
// UTF-16 code units from the start of the line (the LSP default encoding);
// StartByte and EndByte are byte offsets into the file, EndByte exclusive.
// EndLine/EndCol name the position just past the last character, as LSP
// ranges do.
type Range struct {
	StartLine int `json:"start_line"`
	StartCol  int `json:"start_col"`
	EndLine   int `json:"end_line"`
	EndCol    int `json:"end_col"`
	StartByte int `json:"start_byte"`
	EndByte   int `json:"end_byte"`
}

// LastLine returns the 0-based line holding the last character of r: EndLine,
// or EndLine-1 when the range ends at column 0 of EndLine (a range that ends
// with a newline).
func (r Range) LastLine() int {
	if r.EndCol == 0 && r.EndLine > r.StartLine {
		return r.EndLine - 1
	}
	return r.EndLine
}

// Lines maps byte offsets of one file's content to lines and UTF-16 columns.
type Lines struct {
	src    []byte
	starts []int // byte offset of the start of each line
}

// NewLines indexes the line starts of src. A final line without a newline
// still counts as a line; an empty file has one empty line. The table is
// allocated at its size (LineCount): a batch keeps the lines of every
// file it anchors in.
func NewLines(src []byte) *Lines {
	starts := make([]int, 1, LineCount(src))
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &Lines{src: src, starts: starts}
}

// LineCount returns NewLines(src).Count() without making the table of
// line starts: the newlines of src plus one (bytes.Count, vectorized).
func LineCount(src []byte) int { return bytes.Count(src, []byte{'\n'}) + 1 }

// Count returns the number of lines (at least 1).
func (l *Lines) Count() int { return len(l.starts) }

// Start returns the byte offset of the start of 0-based line n, clamped to
// the file.
func (l *Lines) Start(n int) int {
	if n < 0 {
		return 0
	}
	if n >= len(l.starts) {
		return len(l.src)
	}
	return l.starts[n]
}

// End returns the byte offset just past 0-based line n, excluding its
// newline.
func (l *Lines) End(n int) int {
	if n < 0 {
		return 0
	}
	if n+1 >= len(l.starts) {
		return len(l.src)
	}
	return l.starts[n+1] - 1
}

// Text returns the text of 0-based line n without its newline.
func (l *Lines) Text(n int) string {
	if n < 0 || n >= len(l.starts) {
		return ""
	}
	return string(l.src[l.Start(n):l.End(n)])
}

// LineOf returns the 0-based line containing byte offset off.
func (l *Lines) LineOf(off int) int {
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
}

// Position converts a byte offset to a 0-based line and UTF-16 column.
func (l *Lines) Position(off int) (line, col int) {
	if off > len(l.src) {
		off = len(l.src)
	}
	if off < 0 {
		off = 0
	}
	line = l.LineOf(off)
	return line, utf16Len(l.src[l.starts[line]:off])
}

// Offset converts a 0-based line and UTF-16 column to a byte offset. Columns
// past the end of the line clamp to the line end; lines past the end clamp
// to the end of the file. The bool is false when clamping happened.
func (l *Lines) Offset(line, col int) (int, bool) {
	if line < 0 || col < 0 {
		return 0, false
	}
	if line >= len(l.starts) {
		return len(l.src), false
	}
	start, end := l.Start(line), l.End(line)
	units := 0
	for i := start; i < end; {
		if units >= col {
			return i, units == col
		}
		r, size := utf8.DecodeRune(l.src[i:end])
		units += utf16.RuneLen(r)
		if r == utf8.RuneError && size <= 1 {
			units = units - utf16.RuneLen(r) + 1
		}
		i += size
	}
	return end, units == col
}

// RangeOf builds a Range from byte offsets [start, end).
func (l *Lines) RangeOf(start, end int) Range {
	sl, sc := l.Position(start)
	el, ec := l.Position(end)
	return Range{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec, StartByte: start, EndByte: end}
}

// LineRange returns the Range covering whole 0-based lines first..last
// inclusive, from column 0 of first to the end of last (newline excluded).
func (l *Lines) LineRange(first, last int) Range {
	return l.RangeOf(l.Start(first), l.End(last))
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			n++
		} else {
			n += utf16.RuneLen(r)
		}
		b = b[size:]
	}
	return n
}
