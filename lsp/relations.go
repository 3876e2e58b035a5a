package lsp

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// writeLifecycle adds to a memory's hover its relations to other memories
// on one line each ("supersedes: “title”", compact: titles only, a
// dangling one as "(forgotten ID)") and, when a person flagged it, the
// flag and its reason.
func writeLifecycle(b *strings.Builder, m *memory.Memory, w *memory.Workspace) {
	byKind := map[string][]string{}
	var kinds []string
	for _, r := range m.Relations {
		if byKind[r.Kind] == nil {
			kinds = append(kinds, r.Kind)
		}
		byKind[r.Kind] = append(byKind[r.Kind], "“"+escapeMarkdown(w.RelatedTitle(r.ID))+"”")
	}
	for _, k := range kinds {
		fmt.Fprintf(b, "\n\n_%s: %s_", strings.ReplaceAll(k, "_", " "), strings.Join(byKind[k], ", "))
	}
	if m.NeedsReview {
		b.WriteString("\n\n_⚑ flagged as wrong — needs review")
		if m.ReviewReason != "" {
			b.WriteString(": " + escapeMarkdown(m.ReviewReason))
		}
		b.WriteString("_")
	}
}

// wrongTitle is the title of the "this memory is wrong" quick fix.
const wrongTitle = "This memory is wrong"

// wrongAction is the quick fix that flags memory id as wrong
// (gloss.flag: needs review), for a diagnostic (diags) or, with the
// memory's title, for a memory under the cursor.
func wrongAction(id, title string, diags []Diagnostic) CodeAction {
	t := wrongTitle
	if title != "" {
		t = fmt.Sprintf("%s: “%s”", wrongTitle, title)
	}
	return CodeAction{Title: t, Kind: "quickfix", Diagnostics: diags,
		Command: &Command{Title: t, Command: "gloss.flag", Arguments: []any{map[string]any{"id": id}}}}
}

// wrongActions offers "This memory is wrong" for each visible memory
// covering the first line of the requested range that is not flagged
// yet and has no diagnostic (a stale one gets it among the diagnostic's
// quick fixes).
func (s *Server) wrongActions(sn *snap, p codeActionParams) []CodeAction {
	r := s.resolve(sn)
	if r.err != nil {
		return nil
	}
	var out []CodeAction
	seen := map[string]bool{}
	for _, h := range memory.Covering(sn.f.w.Visible(r.mems), sn.rel, p.Range.Start.Line, p.Range.Start.Line) {
		m := h.Memory
		if seen[m.ID] || m.NeedsReview || memory.IsStale(h.Anchor.Status) || m.Source == "imported_git" {
			continue
		}
		seen[m.ID] = true
		out = append(out, wrongAction(m.ID, m.Title, nil))
	}
	return out
}

// offerSupersede tells the user that a memory just remembered is a
// near-duplicate of others on the same anchor (decision ADD with
// candidates), with a "Supersede" action (window/showMessageRequest) that
// makes the new memory supersede them (gloss.relate), hiding them from
// hover and code lens.
func (s *Server) offerSupersede(v memory.View) {
	d := v.Decision
	if d == nil || d.Action != memory.DecisionAdd || len(d.Candidates) == 0 {
		return
	}
	s.goBG(func() {
		var choice *struct {
			Title string `json:"title"`
		}
		msg := fmt.Sprintf("gloss: “%s” is a near-duplicate of %d memory(ies) on the same code. Supersede?", v.Title, len(d.Candidates))
		params := map[string]any{"type": 3, "message": msg, "actions": []map[string]string{{"title": "Supersede"}, {"title": "Keep both"}}}
		if _, err := s.conn.Call(s.ctx, "window/showMessageRequest", params, &choice); err != nil || choice == nil || choice.Title != "Supersede" {
			return
		}
		e := &api.Engine{Host: s.host()}
		for _, id := range d.Candidates {
			if _, err := e.Relate(s.ctx, api.RelateArgs{ID: v.ID, Relation: memory.RelSupersedes, Target: id}); err != nil {
				s.showMessage(1, "gloss: "+err.Error())
				return
			}
		}
		s.showMessage(3, fmt.Sprintf("gloss: “%s” now supersedes %d memory(ies)", v.Title, len(d.Candidates)))
	})
}
