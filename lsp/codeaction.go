package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gloss-dev/gloss/memory"
	"go.lsp.dev/jsonrpc2"
)

// codeActions offers the quick fixes of gloss diagnostics (re-verify,
// edit, show what changed, forget, re-anchor) and "Remember this
// selection".
func (s *Server) codeActions(ctx context.Context, p codeActionParams) ([]CodeAction, error) {
	sn := s.snapshot(p.TextDocument.URI)
	jsonrpc2.Async(ctx)
	out := []CodeAction{}
	if sn.err != nil {
		return out, nil
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
				for _, h := range memory.Covering(r.mems, sn.rel, d.Range.Start.Line, d.Range.Start.Line) {
					if memory.IsStale(h.Anchor.Status) && h.Anchor.Range.StartLine == d.Range.Start.Line && strings.Contains(d.Message, "“"+h.Memory.Title+"”") {
						data.MemoryID = h.Memory.ID
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
					Command: &Command{Title: "Edit memory", Command: "gloss.show", Arguments: []any{map[string]any{"id": id, "edit": true, "present": true}}}},
				CodeAction{Title: "Show what changed", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Show what changed", Command: "gloss.show", Arguments: []any{map[string]any{"id": id, "diff": true, "present": true}}}},
				CodeAction{Title: "Forget memory", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Forget memory", Command: "gloss.forget", Arguments: []any{idArg}}},
				CodeAction{Title: "Re-anchor to selection", Kind: "quickfix", Diagnostics: diags,
					Command: &Command{Title: "Re-anchor to selection", Command: "gloss.update", Arguments: []any{map[string]any{"id": id, "uri": sn.uri, "range": p.Range}}}},
				wrongAction(id, "", diags),
			)
		}
		out = append(out, s.wrongActions(sn, p)...)
	}
	// Not on files gloss cannot anchor in (binary, generated, oversize),
	// where the command always fails.
	if wants("refactor") && p.Range.Start != p.Range.End && sn.load() == nil && sn.f.w.Anchorable(sn.rel, sn.t.src) == nil {
		out = append(out, CodeAction{Title: "Remember this selection", Kind: "refactor",
			Command: &Command{Title: "Remember this selection", Command: "gloss.remember", Arguments: []any{map[string]any{"uri": sn.uri, "range": p.Range}}}})
	}
	return out, nil
}
