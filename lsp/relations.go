package lsp

import (
	"fmt"
	"strings"

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
