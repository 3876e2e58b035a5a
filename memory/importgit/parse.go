package importgit

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
)

const (
	// maxReparseSteps is the most edit groups reparseSteps applies one at
	// a time; a commit with more changes in one file is re-parsed from
	// its base at once (index.Indexer.ReparseLean, which may parse it
	// whole).
	maxReparseSteps = 32
	// editJoin is the gap in bytes below which two line edits are re-parsed
	// as one group.
	editJoin = 256
)

// reparseSteps returns the parse of newSrc, another version of base's
// file, as a File without syntax trees (ix.ReparseLean).
// ReparseLean re-parses the span between the longest common prefix and
// suffix, which for a commit editing two distant places is most of the
// file; so the line edits between the versions (Myers' algorithm, E. W.
// Myers, "An O(ND) Difference Algorithm and Its Variations", 1986, as
// diffLines implements it) are grouped and applied one group at a
// time, from the end of the file backwards, each step a ReparseLean of one
// small region. The intermediate versions own no trees: they are garbage
// as soon as the next step is made.
func reparseSteps(ix *index.Indexer, ps map[*index.Language]*ts.Parser, base *index.File, newSrc []byte) (*index.File, error) {
	groups := lineEdits(string(base.Src), string(newSrc))
	if len(groups) <= 1 || len(groups) > maxReparseSteps || base.HasError {
		return ix.ReparseLean(ps, base, newSrc)
	}
	cur, src := base, string(base.Src)
	var err error
	for k := len(groups) - 1; k >= 0; k-- {
		e := groups[k]
		src = src[:e.Start] + e.New + src[e.End:]
		if cur, err = ix.ReparseLean(ps, cur, []byte(src)); err != nil {
			return nil, err
		}
		if cur.HasError && k > 0 {
			// An intermediate version does not parse (the edits depend on
			// each other): every further step would parse whole.
			return ix.ReparseLean(ps, base, newSrc)
		}
	}
	if string(cur.Src) != string(newSrc) { // the edits did not reproduce it
		return ix.ReparseLean(ps, base, newSrc)
	}
	return cur, nil
}

// lineEdits returns the grouped line edits from a to b (offsets in a):
// the common prefix and suffix (whole lines) are cut first and only the
// middle is diffed (diffLines); nil when the middle differs in more than
// maxEditLines lines.
func lineEdits(a, b string) []udiff.Edit {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	p = strings.LastIndexByte(a[:p], '\n') + 1
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	if i := strings.IndexByte(a[len(a)-s:], '\n'); i >= 0 {
		s -= i + 1
	} else {
		s = 0
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	la, offsets := splitLines(ma)
	lb, _ := splitLines(mb)
	edits, ok := diffLines(la, lb, offsets, maxEditLines)
	if !ok {
		return nil
	}
	for i := range edits {
		edits[i].Start += p
		edits[i].End += p
	}
	return editGroups(a, edits)
}

// editGroups merges edits (sorted, non-overlapping, offsets in src) that
// touch or lie within editJoin bytes of each other into one edit each.
func editGroups(src string, edits []udiff.Edit) []udiff.Edit {
	var out []udiff.Edit
	for _, e := range edits {
		if n := len(out); n > 0 && e.Start-out[n-1].End <= editJoin && e.Start >= out[n-1].End {
			last := &out[n-1]
			last.New += src[last.End:e.Start] + e.New
			last.End = e.End
			continue
		}
		out = append(out, e)
	}
	return out
}
