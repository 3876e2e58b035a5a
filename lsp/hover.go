package lsp

import (
	"context"
	"fmt"
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
	hs := memory.Covering(r.mems, sn.rel, p.Position.Line, p.Position.Line)
	if len(hs) == 0 {
		return nil, nil
	}
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n\n---\n\n")
		}
		writeMemoryMarkdown(&b, h.Memory, h.Anchor, sn.t)
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
	}
	return status
}

// writeMemoryMarkdown renders one memory of a hover: title, body,
// provenance, status and, for a stale anchor, the diff of its code.
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
		if d := memory.AnchorDiff(a, t.src, 20); d != "" {
			b.WriteString("\n\n```diff\n")
			b.WriteString(d)
			b.WriteString("```")
		}
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
