package index

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	ts "github.com/odvcencio/gotreesitter"
)

// Token is one lexical token of a parsed file with comments removed: the
// text of a tree-sitter leaf (or non-blank text a grammar leaves between
// children), with byte offsets [Start, End) into the file.
type Token struct {
	Text  string
	Start int
	End   int
}

// Tokens returns the normalized token stream of the bytes [start, end) of a
// parsed file: tree-sitter leaves in source order, comment nodes and
// Python/JS docstring-only statements dropped, whitespace ignored. It is the
// basis of every content hash gloss stores, so reformatting or editing
// comments never changes a hash while any token change does.
func (f *File) Tokens(start, end int) []Token {
	rs := f.tokenRanges(nil, start, end)
	if len(rs) == 0 {
		return nil
	}
	out := make([]Token, len(rs))
	for i, r := range rs {
		out[i] = Token{Text: string(f.Src[r.start:r.end]), Start: r.start, End: r.end}
	}
	return out
}

// tokenRange is the byte range [start, end) in File.Src of one token of
// Tokens.
type tokenRange struct{ start, end int }

// tokenRanges appends to buf the byte ranges of the tokens
// Tokens(start, end) returns, in the same order, without making their
// texts (extractor.add hashes them from Src), and returns buf.
func (f *File) tokenRanges(buf []tokenRange, start, end int) []tokenRange {
	start, end = max(start, 0), min(end, len(f.Src))
	if f.spans == nil && f.packed == nil && (f.stream == nil || f.skipOverlap) {
		f.walkTokens(start, end, func(s, e int) { buf = append(buf, tokenRange{s, e}) })
		return buf
	}
	return streamRanges(f, buf, start, end, func(s, e int) tokenRange { return tokenRange{s, e} })
}

// streamRanges appends to buf, made by mk, the tokens of the compact
// whole-file stream (DropTree's spans, else File.stream, else the window
// of the stored stream, File.packed) in [start, end):
// tokens inside the window whole, those straddling a bound split on
// whitespace within it (gapTokens), exactly as collectTokens clips a leaf
// or a gap; a stream token inside a range of f.skipped is left out, as
// collectTokens leaves out a marked node (a token lies inside the node
// that emits it, so it is inside a skipped node's range or outside it).
func streamRanges[T any](f *File, buf []T, start, end int, mk func(s, e int) T) []T {
	spans := f.streamSpans(start, end)
	sk := f.skipped
	i := sort.Search(len(spans), func(i int) bool { return int(spans[i].end) > start })
	j := 0
	if len(sk) > 0 && i < len(spans) {
		s0 := int(spans[i].start)
		j = sort.Search(len(sk), func(j int) bool { return sk[j].end > s0 })
	}
	for ; i < len(spans) && int(spans[i].start) < end; i++ {
		s, e := int(spans[i].start), int(spans[i].end)
		for j < len(sk) && sk[j].end <= s {
			j++
		}
		if j < len(sk) && sk[j].start <= s && e <= sk[j].end {
			continue
		}
		if s >= start && e <= end {
			buf = append(buf, mk(s, e))
		} else {
			gapTokens(f.Src, max(s, start), min(e, end), func(s, e int) { buf = append(buf, mk(s, e)) })
		}
	}
	return buf
}

// streamSpans returns the compact whole-file token stream of f that
// covers the byte window [start, end): DropTree's spans, else
// File.stream, else the tokens of the stored stream (File.packed) that
// reach into the window; nil when f keeps none.
func (f *File) streamSpans(start, end int) []tokenSpan {
	switch {
	case f.spans != nil:
		return f.spans
	case f.stream != nil:
		return f.stream
	case f.packed != nil:
		return f.packed.window(nil, start, end)
	}
	return nil
}

// dropSkipped removes from f.stream, in place, the tokens inside a range
// of f.skipped: the result of streamRanges(f, nil, 0, len(f.Src), spanOf)
// without a second slice. A whole-file window splits no token, so each is
// kept or dropped whole and a kept one only moves towards the front; a
// stream that does not lie within the source (never made by
// compactTokens) goes through streamRanges.
func (f *File) dropSkipped() {
	spans, sk := f.stream, f.skipped
	if len(spans) == 0 {
		return
	}
	if spans[0].start < 0 || int(spans[len(spans)-1].end) > len(f.Src) {
		f.stream = streamRanges(f, nil, 0, len(f.Src), spanOf)
		return
	}
	out, j := spans[:0], 0
	for _, t := range spans {
		s, e := int(t.start), int(t.end)
		if e <= 0 || s >= len(f.Src) { // outside the window, as streamRanges
			continue
		}
		for j < len(sk) && sk[j].end <= s {
			j++
		}
		if j < len(sk) && sk[j].start <= s && e <= sk[j].end {
			continue
		}
		out = append(out, t)
	}
	f.stream = out
}

// spanOf makes the tokenSpan of [s, e).
func spanOf(s, e int) tokenSpan { return tokenSpan{int32(s), int32(e)} }

// skip marks n to be left out of the token stream (skipNodes) and records
// its byte range in f.skipped, kept sorted, for the stream's windows.
func (f *File) skip(n *ts.Node) {
	f.skipNodes[n] = true
	r := tokenRange{int(n.StartByte()), int(n.EndByte())}
	k := sort.Search(len(f.skipped), func(k int) bool { return f.skipped[k].start >= r.start })
	if k > 0 && f.skipped[k-1].end > r.start || k < len(f.skipped) && f.skipped[k].start < r.end {
		f.skipOverlap = true
	}
	f.skipped = append(f.skipped, tokenRange{})
	copy(f.skipped[k+1:], f.skipped[k:])
	f.skipped[k] = r
}

// walkTokens calls emit with the byte offsets [s, e) in f.Src of each token
// Tokens(start, end) returns, in order, without making their texts. f
// must have its syntax trees (or be plain text).
func (f *File) walkTokens(start, end int, emit func(s, e int)) {
	if f.plain {
		gapTokens(f.Src, start, end, emit)
		return
	}
	for _, sg := range f.segs {
		s0, e0 := max(start, sg.from), min(end, sg.to)
		if s0 >= e0 {
			continue
		}
		shifted := emit
		if sh := sg.shift; sh != 0 {
			shifted = func(s, e int) { emit(s+sh, e+sh) }
		}
		collectTokens(sg.tree.RootNode(), sg.tree.Language(), sg.src, sg.skip, s0-sg.shift, e0-sg.shift, shifted)
	}
}

// tokenSpan is the byte range [start, end) of one token of a File whose
// syntax trees were dropped (DropTree); its text is Src[start:end].
type tokenSpan struct{ start, end int32 }

// DropTree computes the file's whole token stream and the hash of its
// content, keeps them in compact form (8 bytes per token) and releases the
// syntax trees: the File still answers Tokens (with the same result as
// before: a token that straddles the window is cut to it as the tree walk
// does), Defs, Calls, Lines, Enclosing and SrcHash, in a fraction of the
// memory, but cannot be Reparsed. Batch anchoring caches parsed files this
// way. Files over 2 GiB keep their trees.
func (f *File) DropTree() {
	if f.spans != nil || f.plain || len(f.Src) >= 1<<31 {
		return
	}
	spans := f.stream
	if spans == nil {
		spans = f.compactTokens()
	}
	f.srcHash = HashBytes(f.Src)
	f.Release()
	f.skipNodes = nil
	f.spans = spans
}

// SrcHash returns HashBytes(f.Src), computed once by DropTree.
func (f *File) SrcHash() string {
	if f.srcHash != "" {
		return f.srcHash
	}
	return HashBytes(f.Src)
}

// compactTokens returns the whole token stream of a File with syntax
// trees (or of plain text) as byte ranges, 8 bytes per token.
func (f *File) compactTokens() []tokenSpan {
	var spans []tokenSpan
	f.walkTokens(0, len(f.Src), func(s, e int) { spans = append(spans, tokenSpan{int32(s), int32(e)}) })
	return spans
}

// collectTokens calls emit with the byte offsets (in src) of each token of
// the subtree n inside [start, end), in source order (see File.Tokens).
func collectTokens(n *ts.Node, lang *ts.Language, src []byte, skip map[*ts.Node]bool, start, end int, emit func(s, e int)) {
	ns, ne := int(n.StartByte()), int(n.EndByte())
	if ne <= start || ns >= end {
		return
	}
	typ := n.Type(lang)
	if isCommentType(typ) || skip[n] {
		return
	}
	cnt := n.ChildCount()
	if cnt == 0 {
		if ne > ns && ns >= start && ne <= end {
			emit(ns, ne)
		} else if ne > ns {
			// Partially inside: clip to the window.
			gapTokens(src, max(ns, start), min(ne, end), emit)
		}
		return
	}
	// Children are in source order and do not overlap: start at the first
	// one that ends inside the window and stop at the first that starts
	// past it, so that the tokens of one definition cost its own size, not
	// the number of top-level declarations of the file.
	pos, i0 := ns, 0
	if cnt > 8 {
		i0 = sort.Search(cnt, func(i int) bool {
			c := n.Child(i)
			return c != nil && int(c.EndByte()) > start
		})
		if i0 > 0 {
			if c := n.Child(i0 - 1); c != nil {
				pos = max(pos, int(c.EndByte()))
			}
		}
	}
	for i := i0; i < cnt; i++ {
		c := n.Child(i)
		if c == nil {
			continue
		}
		cs := int(c.StartByte())
		if cs > pos {
			gapTokens(src, max(pos, start), min(cs, end), emit)
		}
		if cs >= end {
			pos = ne // the rest is past the window
			break
		}
		// The window starts at pos: a child that begins inside an earlier
		// one gives only its part past it, so that the stream stays in
		// order (and its token record encodable). gotreesitter's Python
		// scanner reads an escaped backslash at the end of a line of a
		// string (`"""x\\` newline) as an escape sequence and a line
		// continuation that share a byte. A child after pos loses nothing.
		collectTokens(c, lang, src, skip, max(start, pos), end, emit)
		if ce := int(c.EndByte()); ce > pos {
			pos = ce
		}
	}
	if ne > pos {
		gapTokens(src, max(pos, start), min(ne, end), emit)
	}
}

// gapTokens emits the non-blank text in src[s:e] that no child node
// covers, split on whitespace. Grammars leave some content (for example
// parts of string literals) outside any child node; dropping it would hide
// edits. emit receives each piece's byte offsets [i, j).
func gapTokens[S ~string | ~[]byte](src S, s, e int, emit func(i, j int)) {
	if s >= e {
		return
	}
	i := s
	for i < e {
		for i < e && isSpace(src[i]) {
			i++
		}
		j := i
		for j < e && !isSpace(src[j]) {
			j++
		}
		if j > i {
			emit(i, j)
		}
		i = j
	}
}

// SplitTokens returns toks with each token that holds whitespace split
// on it into its pieces (as gapTokens splits), in order, with offsets in
// the same source; a token without whitespace stays whole. Tokens(start,
// end) splits the tokens that straddle its window's bounds this way (a Go
// raw string or a text block over several lines, for one): the pieces of
// a window's tokens are a run of the pieces of the whole file's tokens,
// wherever the window cut.
func SplitTokens(toks []Token) []Token {
	out := make([]Token, 0, len(toks))
	for _, t := range toks {
		if t.Text == "" { // no pieces: kept, as a token without whitespace is
			out = append(out, t)
			continue
		}
		gapTokens(t.Text, 0, len(t.Text), func(i, j int) {
			out = append(out, Token{Text: t.Text[i:j], Start: t.Start + i, End: t.Start + j})
		})
	}
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isCommentType(t string) bool {
	return t == "comment" || t == "line_comment" || t == "block_comment" || strings.HasSuffix(t, "_comment")
}

// HashTokens returns the hex SHA-256 of a token stream (texts joined by a
// NUL byte). An empty stream hashes to "".
func HashTokens(toks []Token) string {
	if len(toks) == 0 {
		return ""
	}
	h := sha256.New()
	for i, t := range toks {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(t.Text))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashBytes returns the hex SHA-256 of b.
func HashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TokenTexts returns the texts of toks.
func TokenTexts(toks []Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

// SameTokens reports whether the whole token streams of a and b (Tokens
// over each file) have the same texts, as comparing the HashTokens of both
// would, without making the texts when both files keep compact tokens
// (DropTree, ReparseLean, ParseGoFast).
func SameTokens(a, b *File) bool {
	if a.spans == nil || b.spans == nil {
		return HashTokens(a.Tokens(0, len(a.Src))) == HashTokens(b.Tokens(0, len(b.Src)))
	}
	if len(a.spans) != len(b.spans) {
		return false
	}
	for i, s := range a.spans {
		t := b.spans[i]
		if string(a.Src[s.start:s.end]) != string(b.Src[t.start:t.end]) {
			return false
		}
	}
	return true
}
