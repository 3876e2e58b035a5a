package memory

// Span anchors: finding a span's tokens (or, failing that, its lines) in
// the current version of its file (DESIGN.md, resolution step 2).

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/pmezard/go-difflib/difflib"
)

// resolveSpan implements DESIGN.md step 2 for files on disk: find the
// span's normalized tokens (unique match, else the match inside the
// enclosing symbol, else the nearest); failing that, locate the lines by a
// line diff of the stored snapshot against the enclosing definition (or the
// file) and report changed; deleted when nothing can be located.
func (r *resolver) resolveSpan(a Anchor) Anchor {
	f := r.parsed(a.Path)
	if f == nil && a.Symbol != "" {
		if defs, _ := r.w.Store.DefsBySymbol(a.Symbol); len(defs) == 1 {
			f = r.parsed(defs[0].Path)
		}
	}
	if f == nil {
		f = r.findSnapshot(a)
	}
	if f == nil {
		a.Status = StatusDeleted
		return a
	}
	var enc *index.Definition
	if a.Symbol != "" {
		for i := range f.Defs {
			if f.Defs[i].Symbol == a.Symbol {
				enc = &f.Defs[i]
				break
			}
		}
	}
	m, ok := bestSpanMatch(a, f, enc, spanMatches(a, f, r.tokens))
	if !ok {
		m, ok = bestSpanMatch(a, f, enc, pieceMatches(a, f, enc, r.pieces))
	}
	if ok {
		a.Path = f.Path
		first, last := spanLines(a, f, m)
		a.Range = f.Lines.LineRange(first, last)
		a.Status = placeStatus(a)
		return a
	}
	// The tokens are gone: the span's code changed. Locate it by lines.
	lo, hi := 0, f.Lines.Count()-1
	if enc != nil {
		lo, hi = enc.Range.StartLine, enc.Range.LastLine()
	}
	first, last, ok := locateLines(a, f, lo, hi)
	if !ok {
		if enc == nil {
			a.Status = StatusDeleted
			return a
		}
		first, last = lo, hi
	}
	a.Path = f.Path
	a.Range = f.Lines.LineRange(first, last)
	a.Status = StatusChanged
	if ok && len(a.Tokens) == 0 && strings.TrimSpace(a.Snapshot) == "" && string(snapshotOf(f, first, last)) == a.Snapshot {
		// Blank lines (no tokens, no text to look for) placed by their
		// context and still blank: moved or fresh, not changed.
		a.Status = placeStatus(a)
	}
	return a
}

// spanMatch is a place of a span's code: byte offsets [start, end).
type spanMatch struct{ start, end int }

// spanMatches returns every place of the span's normalized tokens in f (by
// its snapshot text when it has no tokens).
func spanMatches(a Anchor, f *index.File, tokens func(*index.File) []index.Token) []spanMatch {
	var matches []spanMatch
	if len(a.Tokens) > 0 {
		toks := tokens(f)
		for _, i := range findSeq(toks, a.Tokens) {
			matches = append(matches, spanMatch{toks[i].Start, toks[i+len(a.Tokens)-1].End})
		}
	} else if strings.TrimSpace(a.Snapshot) != "" && len(a.Snapshot) < SnapshotCap {
		snap := []byte(a.Snapshot)
		for off := 0; ; {
			i := bytes.Index(f.Src[off:], snap)
			if i < 0 {
				break
			}
			matches = append(matches, spanMatch{off + i, off + i + len(snap)})
			off += i + 1
		}
	}
	return matches
}

// spanLines returns the 0-based first and last lines of the span a
// found at m in f: the lines of m's first and last bytes, widened by the
// span's lead and trail lines (clamped to the file).
func spanLines(a Anchor, f *index.File, m spanMatch) (first, last int) {
	first = max(f.Lines.LineOf(m.start)-a.LeadLines, 0)
	last = min(f.Lines.LineOf(max(m.end-1, m.start))+a.TrailLines, f.Lines.Count()-1)
	return first, last
}

// pieceMatches returns the places of a span whose tokens were not found
// whole in f (spanMatches) where their pieces (index.SplitTokens) are a
// run of the pieces of f's tokens (pieces), inside the span's enclosing
// definition enc when it has one, and the lines there are the span's
// snapshot, byte for byte. A span whose first or last line lies
// inside a token of several lines (a Go raw string, a text block) was
// anchored with that token cut at its lines (index.File.Tokens), which
// the whole file's tokens never show: without this such a span was
// reported changed when only lines above it were inserted
// (docs/benchmarks.md, session 20). The definition and snapshot checks
// keep a changed span's code, found as text inside some other string,
// from passing for it.
func pieceMatches(a Anchor, f *index.File, enc *index.Definition, pieces func(*index.File) []index.Token) []spanMatch {
	if len(a.Tokens) == 0 || a.Snapshot == "" || len(a.Snapshot) >= SnapshotCap {
		return nil
	}
	var want []string
	for _, t := range index.SplitTokens(tokensOf(a.Tokens)) {
		want = append(want, t.Text)
	}
	toks := pieces(f)
	var matches []spanMatch
	for _, i := range findSeq(toks, want) {
		m := spanMatch{toks[i].Start, toks[i+len(want)-1].End}
		if enc != nil && (m.start < enc.Range.StartByte || m.end > enc.Range.EndByte) {
			continue
		}
		first, last := spanLines(a, f, m)
		if string(snapshotOf(f, first, last)) == a.Snapshot {
			matches = append(matches, m)
		}
	}
	return matches
}

// tokensOf returns texts as tokens without offsets (for
// index.SplitTokens of an anchor's stored token texts).
func tokensOf(texts []string) []index.Token {
	out := make([]index.Token, len(texts))
	for i, t := range texts {
		out[i] = index.Token{Text: t}
	}
	return out
}

// bestSpanMatch picks the match inside the enclosing definition enc (if
// any), then the nearest to the span's last known line; ok is false
// without matches.
func bestSpanMatch(a Anchor, f *index.File, enc *index.Definition, matches []spanMatch) (spanMatch, bool) {
	if len(matches) == 0 {
		return spanMatch{}, false
	}
	score := func(m spanMatch) int {
		s := 0
		if enc != nil && m.start >= enc.Range.StartByte && m.end <= enc.Range.EndByte {
			s += 1 << 24
		}
		dist := f.Lines.LineOf(m.start) - a.Range.StartLine
		if dist < 0 {
			dist = -dist
		}
		return s - min(dist, 1<<22)
	}
	best := matches[0]
	for _, m := range matches[1:] {
		if score(m) > score(best) {
			best = m
		}
	}
	return best, true
}

// locateLines maps the anchor's snapshot, with its context lines, onto
// lines lo..hi of f by the matching blocks of a line diff
// (whitespace-trimmed lines), and returns the mapped 0-based first and last
// lines of the snapshot. Lines of the snapshot that still match place it
// directly; otherwise the nearest matching context line above or below
// does, offset by the distance it had. ok is false when nothing matches.
func locateLines(a Anchor, f *index.File, lo, hi int) (first, last int, ok bool) {
	snap := strings.Split(a.Snapshot, "\n")
	old := append(append(append([]string{}, a.ContextBefore...), snap...), a.ContextAfter...)
	s, e := len(a.ContextBefore), len(a.ContextBefore)+len(snap)-1
	// Trivial lines ("}", ")", blank) would pair up anywhere: they get
	// unique values so that only lines with content place the span.
	trim := func(ls []string, side string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.TrimSpace(l)
			if len(out[i]) <= 2 {
				out[i] = fmt.Sprintf("\x00%s%d", side, i)
			}
		}
		return out
	}
	var cur []string
	for l := lo; l <= hi; l++ {
		cur = append(cur, f.Lines.Text(l))
	}
	at := map[int]int{} // old line index → new line (0-based, in f)
	for _, b := range difflib.NewMatcher(trim(old, "o"), trim(cur, "n")).GetMatchingBlocks() {
		for k := 0; k < b.Size; k++ {
			at[b.A+k] = lo + b.B + k
		}
	}
	if len(at) == 0 {
		return 0, 0, false
	}
	// place returns the new line of old index i from the nearest matched
	// line, searching inside the snapshot first in direction dir.
	place := func(i, dir int) int {
		for k := i; k >= s && k <= e; k += dir {
			if n, ok := at[k]; ok {
				return n - (k - i)
			}
		}
		for d := 1; d < len(old); d++ {
			if n, ok := at[i-d]; ok && i-d < s {
				return n + d
			}
			if n, ok := at[i+d]; ok && i+d > e {
				return n - d
			}
		}
		return -1
	}
	first, last = place(s, 1), place(e, -1)
	if first < 0 || last < 0 {
		return 0, 0, false
	}
	first = max(lo, min(first, hi))
	last = max(first, min(last, hi))
	return first, last, true
}

// findSeq returns the start indexes of every occurrence of want in toks.
func findSeq(toks []index.Token, want []string) []int {
	var out []int
	if len(want) == 0 {
		return nil
	}
outer:
	for i := 0; i+len(want) <= len(toks); i++ {
		if toks[i].Text != want[0] {
			continue
		}
		for j := 1; j < len(want); j++ {
			if toks[i+j].Text != want[j] {
				continue outer
			}
		}
		out = append(out, i)
	}
	return out
}
