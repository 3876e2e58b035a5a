package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/gloss-dev/gloss/memory"
)

// hit is one memory anchor covering a place.
type hit struct {
	m *memory.Memory
	a memory.Anchor
}

func (s *Server) encoding() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// covering returns the memories with an anchor in rel covering 0-based
// lines first..last, most confident and newest first.
func covering(mems []*memory.Memory, rel string, first, last int) []hit {
	var out []hit
	for _, m := range mems {
		for _, a := range m.Anchors {
			if a.Path == rel && a.Range.StartLine <= last && a.Range.LastLine() >= first {
				out = append(out, hit{m, a})
				break
			}
		}
	}
	sortHits(out)
	return out
}

// sortHits orders by confidence (halved for stale anchors), then newest.
func sortHits(hs []hit) {
	conf := func(h hit) float64 {
		c := h.m.Confidence
		if memory.IsStale(h.a.Status) {
			c /= 2
		}
		return c
	}
	sort.SliceStable(hs, func(i, j int) bool {
		if ci, cj := conf(hs[i]), conf(hs[j]); ci != cj {
			return ci > cj
		}
		return hs[i].m.CreatedAt.After(hs[j].m.CreatedAt)
	})
}

func (s *Server) hover(_ context.Context, sn *snap, pos Position) *Hover {
	r := s.resolve(sn)
	if r.err != nil {
		return nil
	}
	hs := covering(r.mems, sn.rel, pos.Line, pos.Line)
	if len(hs) == 0 {
		return nil
	}
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n\n---\n\n")
		}
		writeMemoryMarkdown(&b, h.m, h.a, sn.t)
	}
	rng := sn.t.lineRange(hs[0].a.Range.StartLine, hs[0].a.Range.LastLine(), s.encoding())
	return &Hover{Contents: MarkupContent{Kind: "markdown", Value: b.String()}, Range: &rng}
}

// statusLabel describes an anchor status for people.
func statusLabel(status string) string {
	switch status {
	case memory.StatusFresh:
		return "✓ fresh"
	case memory.StatusMoved:
		return "✓ moved (unchanged)"
	case memory.StatusChanged:
		return "⚠ stale: the code changed since"
	case memory.StatusSignatureChanged:
		return "⚠ stale: the signature changed since"
	case memory.StatusDeleted:
		return "⚠ stale: the code can no longer be found"
	}
	return status
}

func writeMemoryMarkdown(b *strings.Builder, m *memory.Memory, a memory.Anchor, t *text) {
	fmt.Fprintf(b, "**gloss · %s** — **%s**\n\n", m.Type, escapeMarkdown(m.Title))
	b.WriteString(strings.TrimSpace(m.Body))
	b.WriteString("\n\n")
	author := m.Author
	if author == "" {
		author = "unknown"
	}
	fmt.Fprintf(b, "_%s · %s · %s_", escapeMarkdown(author), m.CreatedAt.Format("2006-01-02"), statusLabel(a.Status))
	if len(m.Tags) > 0 {
		fmt.Fprintf(b, " · tags: %s", escapeMarkdown(strings.Join(m.Tags, ", ")))
	}
	if memory.IsStale(a.Status) {
		if d := anchorDiff(a, t, 20); d != "" {
			b.WriteString("\n\n```diff\n")
			b.WriteString(d)
			b.WriteString("```")
		}
	}
}

func escapeMarkdown(s string) string {
	r := strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]")
	return r.Replace(s)
}

// anchorDiff is a unified diff of the anchored code as written
// (Anchor.Snapshot) against the code now at the anchor in t, cut to at most
// maxLines lines (0: no limit).
func anchorDiff(a memory.Anchor, t *text, maxLines int) string {
	then := a.Snapshot
	now := ""
	if t != nil && a.Status != memory.StatusDeleted {
		first, last := a.Range.StartLine, a.Range.LastLine()
		if first < t.lines.Count() {
			now = string(t.src[t.lines.Start(first):t.lines.End(min(last, t.lines.Count()-1))])
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
	lines := strings.SplitAfter(d, "\n")
	if maxLines > 0 && len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("… %d more lines\n", len(lines)-maxLines))
	}
	return strings.Join(lines, "")
}

// lensCount formats "2 memories · 1 stale".
func lensCount(n, stale int) string {
	s := fmt.Sprintf("%d memories", n)
	if n == 1 {
		s = "1 memory"
	}
	if stale > 0 {
		s += fmt.Sprintf(" · %d stale", stale)
	}
	return s
}

func (s *Server) codeLens(_ context.Context, sn *snap) []CodeLens {
	out := []CodeLens{}
	r := s.resolve(sn)
	if r.err != nil {
		return out
	}
	enc := s.encoding()
	type group struct {
		line, last int
		n, stale   int
	}
	groups := map[string]*group{} // by symbol, or "line:N" for spans outside definitions
	var order []string
	add := func(key string, line, last int, stale bool) {
		g := groups[key]
		if g == nil {
			g = &group{line: line, last: last}
			groups[key] = g
			order = append(order, key)
		}
		g.n++
		if stale {
			g.stale++
		}
	}
	defLines := map[string][2]int{}
	for _, d := range r.defs {
		if _, ok := defLines[d.Symbol]; !ok {
			defLines[d.Symbol] = [2]int{d.Range.StartLine, d.Range.LastLine()}
		}
	}
	for _, m := range r.mems {
		seen := map[string]bool{}
		for _, a := range m.Anchors {
			if a.Path != sn.rel {
				continue
			}
			key := fmt.Sprintf("line:%d", a.Range.StartLine)
			line, last := a.Range.StartLine, a.Range.LastLine()
			if dl, ok := defLines[a.Symbol]; ok && a.Symbol != "" {
				key, line, last = a.Symbol, dl[0], dl[1]
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			add(key, line, last, memory.IsStale(a.Status))
		}
	}
	for _, k := range order {
		g := groups[k]
		rng := sn.t.lineRange(g.line, g.last, enc)
		out = append(out, CodeLens{Range: Range{Start: rng.Start, End: rng.Start}, Command: &Command{
			Title:     lensCount(g.n, g.stale),
			Command:   "gloss.showMemories",
			Arguments: []any{map[string]any{"uri": sn.uri, "range": rng}},
		}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out
}

func (s *Server) codeActions(_ context.Context, sn *snap, p codeActionParams) []CodeAction {
	out := []CodeAction{}
	if sn.err != nil {
		return out
	}
	wants := func(kind string) bool {
		if len(p.Context.Only) == 0 {
			return true
		}
		for _, k := range p.Context.Only {
			if kind == k || strings.HasPrefix(kind, k+".") {
				return true
			}
		}
		return false
	}
	if wants("quickfix") {
		for _, d := range p.Context.Diagnostics {
			if d.Source != "gloss" {
				continue
			}
			var data struct {
				MemoryID string `json:"memoryId"`
			}
			if len(d.Data) > 0 {
				_ = json.Unmarshal(d.Data, &data)
			}
			if data.MemoryID == "" {
				// Clients without diagnostic data support: find the stale
				// memory anchored at the diagnostic's line.
				r := s.resolve(sn)
				for _, h := range covering(r.mems, sn.rel, d.Range.Start.Line, d.Range.Start.Line) {
					if memory.IsStale(h.a.Status) && h.a.Range.StartLine == d.Range.Start.Line && strings.Contains(d.Message, "“"+h.m.Title+"”") {
						data.MemoryID = h.m.ID
						break
					}
				}
				if data.MemoryID == "" {
					continue
				}
			}
			id := data.MemoryID
			diags := []Diagnostic{d}
			idArg := map[string]any{"id": id}
			if d.Code != CodeAnchorLost {
				out = append(out, CodeAction{Title: "Still valid — re-verify", Kind: "quickfix", Diagnostics: diags, IsPreferred: true,
					Command: &Command{Title: "Still valid — re-verify", Command: "gloss.verify", Arguments: []any{idArg}}})
			}
			out = append(out,
				CodeAction{Title: "Edit memory", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Edit memory", Command: "gloss.show", Arguments: []any{map[string]any{"id": id, "edit": true}}}},
				CodeAction{Title: "Show what changed", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Show what changed", Command: "gloss.show", Arguments: []any{map[string]any{"id": id, "diff": true}}}},
				CodeAction{Title: "Forget memory", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Forget memory", Command: "gloss.forget", Arguments: []any{idArg}}},
				CodeAction{Title: "Re-anchor to selection", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Re-anchor to selection", Command: "gloss.update", Arguments: []any{map[string]any{"id": id, "uri": sn.uri, "range": p.Range}}}},
			)
		}
	}
	if wants("refactor") && p.Range.Start != p.Range.End {
		out = append(out, CodeAction{Title: "Remember this selection", Kind: "refactor",
			Command: &Command{Title: "Remember this selection", Command: "gloss.remember", Arguments: []any{map[string]any{"uri": sn.uri, "range": p.Range}}}})
	}
	return out
}

func (s *Server) workspaceSymbol(ctx context.Context, query string) []SymbolInformation {
	out := []SymbolInformation{}
	if strings.TrimSpace(query) == "" {
		return out
	}
	type scored struct {
		si    SymbolInformation
		score float64
	}
	var all []scored
	for _, f := range s.allFolders() {
		hits, err := f.w.Search(ctx, query, 50)
		if err != nil {
			continue
		}
		for _, h := range hits {
			si := SymbolInformation{Name: h.Memory.Title, Kind: 15, ContainerName: "gloss " + h.Memory.Type}
			if len(h.Memory.Anchors) > 0 {
				a := h.Memory.Anchors[0]
				si.Location = Location{URI: pathToURI(f.root + "/" + a.Path), Range: Range{
					Start: Position{Line: a.Range.StartLine, Character: 0}, End: Position{Line: a.Range.LastLine() + 1, Character: 0}}}
			} else {
				si.Location = Location{URI: pathToURI(f.root)}
			}
			all = append(all, scored{si, h.Score})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	for _, x := range all {
		out = append(out, x.si)
	}
	return out
}
