package index

import (
	"fmt"

	ts "github.com/odvcencio/gotreesitter"
)

// Reparse returns the parse of newSrc, a later version of the file old was
// parsed from, re-parsing only the top-level declarations the change
// touches: the change is the span between the longest common prefix and
// suffix of old.Src and newSrc, and the re-parsed region is the top-level
// nodes it overlaps (widened to adjacent comment nodes and, for
// TypeScript/JavaScript, one neighbouring statement because of automatic
// semicolon insertion). Definitions outside the region are reused with
// their byte offsets shifted; their hashes cannot change because their
// tokens did not. Reparse falls back to a full parse (same result as
// Parse) when old had a syntax error, when the region does not parse
// cleanly on its own, or when the change is large. Top-level declarations
// of Go, Python, TypeScript and JavaScript parse independently, which is
// what makes this exact: TestReparseMatchesParse checks it against full
// parses for random edits.
//
// The returned File shares syntax trees with old: do not Release old while
// the result is in use (a document cache can simply drop both).
func (ix *Indexer) Reparse(parsers map[*Language]*ts.Parser, old *File, newSrc []byte) (*File, error) {
	return ix.reparse(parsers, old, newSrc, false)
}

// ReparseTolerant is Reparse for the unsaved text of an editor's document,
// which does not parse most of the time while the user types: where
// Reparse would parse the whole file again because the changed region does
// not parse, it keeps the region's error-recovered parse instead (the
// result has HasError set; definitions outside the region are exact, those
// inside are what tree-sitter's error recovery found), and the next
// version is re-parsed against the last version that parsed cleanly (its
// base), so the region stays the declarations the user is editing and the
// cost of each keystroke stays that of one declaration. A version that
// parses cleanly again gives exactly what Parse gives. Full parses remain
// for the cases Reparse names (large changes, a first version that has a
// syntax error).
func (ix *Indexer) ReparseTolerant(parsers map[*Language]*ts.Parser, old *File, newSrc []byte) (*File, error) {
	if old != nil && old.HasError && old.base != nil {
		old = old.base
	}
	return ix.reparse(parsers, old, newSrc, true)
}

func (ix *Indexer) reparse(parsers map[*Language]*ts.Parser, old *File, newSrc []byte, tolerant bool) (*File, error) {
	if old == nil || old.Lang == nil {
		return nil, fmt.Errorf("reparse: no previous parse of a parsed language")
	}
	full := func() (*File, error) { return ix.ParseSource(parsers, old.Lang, old.Path, newSrc) }
	if old.plain || old.HasError || len(old.segs) == 0 || len(old.segs) > 32 || len(old.tops) == 0 {
		return full()
	}
	p, oldEnd := changed(old.Src, newSrc)
	if p == len(old.Src) && p == len(newSrc) {
		return old, nil
	}
	r, sub, plen, ok := ix.parseRegion(parsers, old, newSrc, p, oldEnd, false)
	if !ok {
		return full()
	}
	clean := !sub.HasError && covered(sub)
	if !clean && !tolerant {
		return full()
	}
	f := splice(old, sub, newSrc, r, plen)
	if !clean {
		f.HasError, f.base = true, old
	}
	return f, nil
}

// Segments returns the number of syntax trees f's parse is made of: 1
// for a full parse, more after Reparse. Each keeps a whole earlier tree
// alive, so a caller that reparses a file again and again parses it whole
// when this grows (Reparse itself does beyond 32).
func (f *File) Segments() int { return len(f.segs) }

// changed returns the changed span of oldSrc: [p, oldEnd) lies between the
// longest common prefix and suffix of oldSrc and newSrc.
func changed(oldSrc, newSrc []byte) (p, oldEnd int) {
	for p < len(oldSrc) && p < len(newSrc) && oldSrc[p] == newSrc[p] {
		p++
	}
	sfx := 0
	for sfx < len(oldSrc)-p && sfx < len(newSrc)-p && oldSrc[len(oldSrc)-1-sfx] == newSrc[len(newSrc)-1-sfx] {
		sfx++
	}
	return p, len(oldSrc) - sfx
}

// region is the re-parsed part of a Reparse: top-level nodes i..j of the
// old parse, bytes [rs, re) of the old source; delta is the change in
// length and shift maps offsets in the region's parse to the new source.
type region struct {
	i, j, rs, re int
	delta, shift int
}

// touched returns the region of top-level nodes the change [p, oldEnd]
// touches, widened to gaps, neighbours (TypeScript/JavaScript automatic
// semicolon insertion) and doc comments; ok is false when it covers half
// the file or more, unless anySize (a region parse then costs less than a
// whole one, but the result of Reparse would keep a whole tree alive per
// region).
func touched(old *File, p, oldEnd int, anySize bool) (region, bool) {
	tops := old.tops
	i := 0
	for i < len(tops) && tops[i].end < p {
		i++
	}
	j := len(tops) - 1
	for j >= 0 && tops[j].start > oldEnd {
		j--
	}
	if i > j { // the change lies in a gap between nodes: take both neighbours
		i, j = i-1, j+1
	}
	if old.Lang.Name != "go" && old.Lang.Name != "python" {
		i, j = i-1, j+1
	}
	i, j = max(i, 0), min(j, len(tops)-1)
	// Doc comments go with the declaration they precede.
	for i > 0 && tops[i-1].comment && tops[i].start-tops[i-1].end <= 2 {
		i--
	}
	for j+1 < len(tops) && tops[j].comment {
		j++
	}
	r := region{i: i, j: j, re: len(old.Src)}
	if i > 0 {
		r.rs = tops[i-1].end
	}
	if j+1 < len(tops) {
		r.re = tops[j+1].start
	}
	return r, !(r.rs > p || r.re < oldEnd || !anySize && r.re-r.rs > len(old.Src)/2)
}

// regionPrefix returns the text a standalone parse of newSrc[rs:newRe]
// needs before it (Go: a synthetic package clause), ok false when the
// region cannot be parsed alone.
func regionPrefix(old *File, newSrc []byte, rs, newRe int) (string, bool) {
	switch {
	case old.Lang.Name == "go":
		// The region must not hold the package clause: it is replaced by a
		// synthetic one naming the same package.
		return "package " + old.goPkg + "\n", old.goPkg != "" && rs != 0
	case old.Lang.Name == "python" && rs > 0:
		// A string statement first in the region would be taken for a
		// module docstring (and left out of tokens) by a standalone parse.
		k := rs
		for k < newRe && isSpace(newSrc[k]) {
			k++
		}
		if k < newRe && (newSrc[k] == '"' || newSrc[k] == '\'' || (newSrc[k] >= 'a' && newSrc[k] <= 'z' || newSrc[k] >= 'A' && newSrc[k] <= 'Z') && k+1 < newRe && (newSrc[k+1] == '"' || newSrc[k+1] == '\'')) {
			return "", false
		}
	}
	return "", true
}

// splice builds the new File from old outside the region and sub (the
// region's parse, after a prefix of plen bytes) inside it.
func splice(old, sub *File, newSrc []byte, r region, plen int) *File {
	rs, re, delta, shift := r.rs, r.re, r.delta, r.shift
	newRe := re + delta
	nl := NewLines(newSrc)
	f := &File{Path: old.Path, Lang: old.Lang, Src: newSrc, Lines: nl, lang: old.lang, goPkg: old.goPkg, owned: sub.owned}
	// Segments: the old trees before the region, the region's tree, the
	// old trees after it (shifted by delta).
	for _, sg := range old.segs {
		if sg.from < rs {
			c := sg
			c.to = min(c.to, rs)
			f.segs = append(f.segs, c)
		}
	}
	for _, sg := range sub.segs {
		c := sg
		c.from, c.to, c.shift = rs, newRe, shift
		f.segs = append(f.segs, c)
	}
	for _, sg := range old.segs {
		if sg.to > re {
			c := sg
			c.from, c.to, c.shift = max(c.from, re)+delta, c.to+delta, c.shift+delta
			f.segs = append(f.segs, c)
		}
	}
	spliceDefs(f, old, sub, r)
	f.tops = append(f.tops, old.tops[:r.i]...)
	for _, t := range sub.tops {
		if t.start < plen {
			continue // the synthetic package clause
		}
		f.tops = append(f.tops, topNode{start: t.start + shift, end: t.end + shift, comment: t.comment})
	}
	for _, t := range old.tops[r.j+1:] {
		f.tops = append(f.tops, topNode{start: t.start + delta, end: t.end + delta, comment: t.comment})
	}
	return f
}

// spliceDefs fills f's definitions and calls: old's outside the region
// (moved by delta after it), sub's inside (moved by shift).
func spliceDefs(f, old, sub *File, r region) {
	nl, olines, sublines := f.Lines, old.Lines, sub.Lines
	move := func(d Definition, from *Lines, by int) Definition {
		docOff := from.Start(d.DocLine)
		d.Range = nl.RangeOf(d.Range.StartByte+by, d.Range.EndByte+by)
		d.NameRange = nl.RangeOf(d.NameRange.StartByte+by, d.NameRange.EndByte+by)
		d.DocLine = nl.LineOf(docOff + by)
		return d
	}
	for _, d := range old.Defs {
		if d.Range.EndByte <= r.rs {
			f.Defs = append(f.Defs, move(d, olines, 0))
		}
	}
	for _, d := range sub.Defs {
		f.Defs = append(f.Defs, move(d, sublines, r.shift))
	}
	for _, d := range old.Defs {
		if d.Range.StartByte >= r.re {
			f.Defs = append(f.Defs, move(d, olines, r.delta))
		}
	}
	for _, c := range old.Calls {
		off := olines.Start(c.Line)
		if off < r.rs {
			f.Calls = append(f.Calls, c)
		} else if off >= r.re {
			c.Line = nl.LineOf(off + r.delta)
			f.Calls = append(f.Calls, c)
		}
	}
	for _, c := range sub.Calls {
		c.Line = nl.LineOf(sublines.Start(c.Line) + r.shift)
		f.Calls = append(f.Calls, c)
	}
}

// covered reports whether every non-blank byte of f lies inside one of its
// top-level nodes; the parser can drop an unfinished trailing token (an
// unclosed "{" at the end of the input) without flagging an error.
func covered(f *File) bool {
	pos := 0
	for _, t := range append(f.tops, topNode{start: len(f.Src), end: len(f.Src)}) {
		for k := pos; k < t.start && k < len(f.Src); k++ {
			if !isSpace(f.Src[k]) {
				return false
			}
		}
		pos = max(pos, t.end)
	}
	return true
}

// parseRegion parses the top-level declarations of newSrc that the edit
// of old.Src between byte offsets p and oldEnd touches (touched), behind
// the prefix that keeps them in their file's context (regionPrefix), as
// one source; plen is the prefix's length in bytes, r.shift the offset
// that maps sub's bytes after it onto newSrc's. ok is false when the edit
// cannot be confined to such a region or the region does not parse: the
// caller parses newSrc whole. anySize allows a region of half the file or
// more (touched).
func (ix *Indexer) parseRegion(parsers map[*Language]*ts.Parser, old *File, newSrc []byte, p, oldEnd int, anySize bool) (r region, sub *File, plen int, ok bool) {
	r, ok = touched(old, p, oldEnd, anySize)
	if !ok {
		return r, nil, 0, false
	}
	r.delta = len(newSrc) - len(old.Src)
	prefix, ok := regionPrefix(old, newSrc, r.rs, r.re+r.delta)
	if !ok {
		return r, nil, 0, false
	}
	regionSrc := make([]byte, 0, plen+r.re+r.delta-r.rs)
	regionSrc = append(regionSrc, prefix...)
	regionSrc = append(regionSrc, newSrc[r.rs:r.re+r.delta]...)
	sub, err := ix.ParseSource(parsers, old.Lang, old.Path, regionSrc)
	if err != nil {
		return r, nil, 0, false
	}
	r.shift = r.rs - len(prefix)
	return r, sub, len(prefix), true
}
