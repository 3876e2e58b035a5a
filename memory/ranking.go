package memory

import (
	"fmt"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/gloss-dev/gloss/index"
)

// Hit is one memory with the anchor that placed it at a queried place.
type Hit struct {
	Memory *Memory
	Anchor Anchor
}

// Covering returns the memories of mems with an anchor in the
// workspace-relative file rel overlapping the 0-based inclusive lines
// first..last, ranked by SortHits.
func Covering(mems []*Memory, rel string, first, last int) []Hit {
	var out []Hit
	for _, m := range mems {
		for _, a := range m.Anchors {
			if a.Path == rel && a.Range.StartLine <= last && a.Range.LastLine() >= first {
				out = append(out, Hit{m, a})
				break
			}
		}
	}
	SortHits(out)
	return out
}

// SortHits orders hits by confidence (the value a hover shows, which
// counts staleness and trust; halved again when the hit's own anchor is
// stale and the memory's confidence does not yet say so), then newest
// first; the sort is stable.
func SortHits(hs []Hit) {
	conf := func(h Hit) float64 {
		c := h.Memory.Confidence
		if IsStale(h.Anchor.Status) && h.Memory.parts.Staleness == 0 {
			c /= 2
		}
		return c
	}
	sort.SliceStable(hs, func(i, j int) bool {
		if ci, cj := conf(hs[i]), conf(hs[j]); ci != cj {
			return ci > cj
		}
		return hs[i].Memory.CreatedAt.After(hs[j].Memory.CreatedAt)
	})
}

// MergeHits merges the search hits of several workspaces by score (best
// first; ties keep workspace order, then ids ascending) and keeps at most
// limit.
func MergeHits(limit int, lists ...[]SearchHit) []SearchHit {
	var all []SearchHit
	for _, l := range lists {
		all = append(all, l...)
	}
	if len(lists) > 1 {
		sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	}
	if limit >= 0 && len(all) > limit {
		all = all[:limit]
	}
	return all
}

// AnchorDiff is a unified diff (go-udiff) of the anchored code as written
// (Anchor.Snapshot) against the code now at the anchor's 0-based lines in
// src (the file's current text; nil or a deleted anchor diff against
// nothing), cut to at most maxLines lines (0: no limit). It is "" when
// they are equal.
func AnchorDiff(a Anchor, src []byte, maxLines int) string {
	then := a.Snapshot
	now := ""
	if src != nil && a.Status != StatusDeleted {
		lines := index.NewLines(src)
		first, last := a.Range.StartLine, a.Range.LastLine()
		if first < lines.Count() {
			now = string(src[lines.Start(first):lines.End(min(last, lines.Count()-1))])
		}
	}
	if !strings.HasSuffix(then, "\n") {
		then += "\n"
	}
	if now != "" && !strings.HasSuffix(now, "\n") {
		now += "\n"
	}
	d := udiff.Unified("then", "now", then, now)
	if d == "" {
		return ""
	}
	out := strings.SplitAfter(d, "\n")
	if maxLines > 0 && len(out) > maxLines {
		out = append(out[:maxLines], fmt.Sprintf("… %d more lines\n", len(out)-maxLines))
	}
	return strings.Join(out, "")
}

// DraftText is the body (and title) of a memory remembered without text:
// a draft, completed in its Markdown file.
const DraftText = "TODO: describe"

// ApplyDraftDefaults makes a request without text a draft: text and (when
// empty) title DraftText, and scope project when none was given, since
// only project memories have the Markdown file a draft is written in. It
// reports whether the request is a draft.
func (r *RememberRequest) ApplyDraftDefaults() bool {
	if strings.TrimSpace(r.Text) != "" {
		return false
	}
	r.Text = DraftText
	if strings.TrimSpace(r.Title) == "" {
		r.Title = DraftText
	}
	if r.Scope == "" {
		r.Scope = ScopeProject
	}
	return true
}
