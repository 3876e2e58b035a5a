package index

import (
	ts "github.com/odvcencio/gotreesitter"
)

// ReparseLean is Reparse for callers that keep many versions of many files
// at once and need definitions and tokens but no syntax trees (git history
// import): it returns the parse of newSrc, a later (or earlier) version of
// old's file, as a File without trees (the compact token stream of
// DropTree), re-parsing only the top-level declarations the change touches
// exactly as Reparse does, and releasing the region's tree before it
// returns. old may have trees or not (a DropTree'd or ReparseLean'd File);
// it is not modified and shares nothing with the result, so either can be
// dropped independently. A region of half the file or more is parsed as a
// region too (it costs less than the whole file, and no tree is kept).
// Where Reparse would parse the whole file for other reasons (old had a
// syntax error, the region does not parse on its own), ReparseLean does
// too and drops the trees; the result then has HasError set if the new
// version does not parse cleanly.
//
// Definitions, tokens and HasError equal those of a full Parse followed by
// DropTree (TestReparseMatchesParse checks this for random edits); Calls
// are as Reparse gives them and Imports are empty, as after Reparse.
func (ix *Indexer) ReparseLean(parsers map[*Language]*ts.Parser, old *File, newSrc []byte) (*File, error) {
	full := func() (*File, error) {
		f, err := ix.ParseSource(parsers, old.Lang, old.Path, newSrc)
		if err == nil {
			f.DropTree()
		}
		return f, err
	}
	if old == nil || old.Lang == nil || old.plain || old.partial || old.HasError || len(old.tops) == 0 || len(old.Src) >= 1<<31 || len(newSrc) >= 1<<31 {
		if old == nil || old.Lang == nil {
			return nil, errNoBase
		}
		return full()
	}
	if old.spans == nil && len(old.segs) == 0 {
		return full() // released: no tokens to reuse
	}
	p, oldEnd := changed(old.Src, newSrc)
	if p == len(old.Src) && p == len(newSrc) {
		return old.leanCopy(newSrc), nil
	}
	r, sub, plen, ok := ix.parseRegion(parsers, old, newSrc, p, oldEnd, true)
	if !ok {
		return full()
	}
	defer sub.Release()
	if sub.HasError || !covered(sub) {
		return full()
	}
	f := &File{Path: old.Path, Lang: old.Lang, Src: newSrc, Lines: NewLines(newSrc), lang: old.lang, goPkg: old.goPkg}
	spliceDefs(f, old, sub, r)
	f.tops = append(f.tops, old.tops[:r.i]...)
	for _, t := range sub.tops {
		if t.start >= plen { // not the synthetic package clause
			f.tops = append(f.tops, topNode{start: t.start + r.shift, end: t.end + r.shift, comment: t.comment})
		}
	}
	for _, t := range old.tops[r.j+1:] {
		f.tops = append(f.tops, topNode{start: t.start + r.delta, end: t.end + r.delta, comment: t.comment})
	}
	f.spans = old.spanRange(0, r.rs, 0)
	f.spans = append(f.spans, sub.spanRange(plen, len(sub.Src), r.shift)...)
	f.spans = append(f.spans, old.spanRange(r.re, len(old.Src), r.delta)...)
	f.srcHash = HashBytes(newSrc)
	return f, nil
}

// leanCopy returns a tree-less File of the same content as f with src (an
// identical copy of f.Src) as its source.
func (f *File) leanCopy(src []byte) *File {
	g := &File{Path: f.Path, Lang: f.Lang, Src: src, Lines: f.Lines, lang: f.lang, goPkg: f.goPkg, HasError: f.HasError}
	g.Defs = append([]Definition(nil), f.Defs...)
	g.Calls = append([]Call(nil), f.Calls...)
	g.Imports = append([]Import(nil), f.Imports...)
	g.tops = append([]topNode(nil), f.tops...)
	g.spans = f.spanRange(0, len(f.Src), 0)
	g.srcHash = f.SrcHash()
	return g
}

// spanRange returns the compact tokens of f in [start, end), moved by
// shift. The range's bounds lie between top-level nodes, so no token
// straddles them.
func (f *File) spanRange(start, end, shift int) []tokenSpan {
	var out []tokenSpan
	if f.spans != nil {
		for _, s := range f.spans {
			if int(s.start) >= start && int(s.end) <= end {
				out = append(out, tokenSpan{s.start + int32(shift), s.end + int32(shift)})
			}
		}
		return out
	}
	for _, t := range f.Tokens(start, end) {
		out = append(out, tokenSpan{int32(t.Start + shift), int32(t.End + shift)})
	}
	return out
}

// errNoBase is ReparseLean's error for a missing or unparsed base.
var errNoBase = errorString("reparse: no previous parse of a parsed language")

type errorString string

func (e errorString) Error() string { return string(e) }
