package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/memory"
	"go.lsp.dev/jsonrpc2"
)

// hover shows the memories covering the position, most confident first.
func (s *Server) hover(ctx context.Context, p textDocumentPositionParams) (*Hover, error) {
	sn := s.snapshot(p.TextDocument.URI)
	jsonrpc2.Async(ctx)
	r := s.resolve(sn)
	if r.err != nil {
		return nil, nil
	}
	// Superseded memories are hidden: their successor's hover names them.
	hs := memory.Covering(sn.f.w.Visible(r.mems), sn.rel, p.Position.Line, p.Position.Line)
	if len(hs) == 0 {
		return nil, nil
	}
	w := sn.f.w
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.Memory.ID
	}
	w.RecordAccess(ids...) // in memory only; flushed in the background
	var b strings.Builder
	var history []memory.Hit
	for _, h := range hs {
		if h.Memory.Source == memory.SourceImportedGit {
			history = append(history, h)
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n---\n\n")
		}
		writeMemoryMarkdown(&b, h.Memory, h.Anchor, sn.t, w.Confidence(h.Memory).Value)
		writeLifecycle(&b, h.Memory, sn.f.w)
	}
	if len(history) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n---\n\n")
		}
		writeHistory(&b, history, hoverHistory)
	}
	rng := sn.t.lineRange(hs[0].Anchor.Range.StartLine, hs[0].Anchor.Range.LastLine(), s.encoding())
	return &Hover{Contents: MarkupContent{Kind: "markdown", Value: b.String()}, Range: &rng}, nil
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
	case "":
		return "not checked yet: the workspace is being indexed"
	}
	return status
}

// writeMemoryMarkdown renders one memory of a hover: title, body,
// provenance, status, confidence (0..1, memory/confidence.Of) and, for a
// stale anchor, the diff of its code.
func writeMemoryMarkdown(b *strings.Builder, m *memory.Memory, a memory.Anchor, t *text, confidence float64) {
	fmt.Fprintf(b, "**gloss · %s** — **%s**\n\n", m.Type, escapeMarkdown(m.Title))
	b.WriteString(strings.TrimSpace(m.Body))
	b.WriteString("\n\n")
	author := m.Author
	if author == "" {
		author = "unknown"
	}
	fmt.Fprintf(b, "_%s · %s · %s · confidence %.2f_", escapeMarkdown(author), m.CreatedAt.Format("2006-01-02"), statusLabel(a.Status), confidence)
	if len(m.Tags) > 0 {
		fmt.Fprintf(b, " · tags: %s", escapeMarkdown(strings.Join(m.Tags, ", ")))
	}
	if memory.IsStale(a.Status) {
		if d := memory.AnchorDiff(a, t.src, 20); d != "" {
			b.WriteString("\n\n```diff\n")
			b.WriteString(d)
			b.WriteString("```")
		}
	}
}

// hoverHistory is the number of imported commits a hover lists.
const hoverHistory = 5

// writeHistory renders memories imported from git history compactly: one
// line per commit (date, type, title, author, status), newest first, at
// most max lines and then "+N older", so a definition changed by forty
// commits keeps a readable hover.
func writeHistory(b *strings.Builder, hs []memory.Hit, max int) {
	hs = append([]memory.Hit(nil), hs...)
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Memory.CreatedAt.After(hs[j].Memory.CreatedAt) })
	unit := "commits"
	if len(hs) == 1 {
		unit = "commit"
	}
	fmt.Fprintf(b, "**gloss · history** — %d %s\n", len(hs), unit)
	for i, h := range hs {
		if i == max {
			fmt.Fprintf(b, "\n\n_+%d older_", len(hs)-max)
			break
		}
		m := h.Memory
		status := ""
		if memory.IsStale(h.Anchor.Status) {
			status = " · ⚠ " + strings.ReplaceAll(h.Anchor.Status, "_", " ") + " since"
		}
		fmt.Fprintf(b, "\n- %s · %s · **%s** — %s%s", m.CreatedAt.Format("2006-01-02"), m.Type, escapeMarkdown(m.Title), escapeMarkdown(m.Author), status)
	}
}

// escapeMarkdown escapes the Markdown emphasis, code and link characters.
func escapeMarkdown(s string) string {
	r := strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]")
	return r.Replace(s)
}

func (s *Server) encoding() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}
