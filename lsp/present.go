package lsp

import (
	"fmt"
	"strings"

	"github.com/gloss-dev/gloss/api"
)

// present shows the result of a quick fix's gloss.show to the user, since
// clients ignore command results (what each client gets is in
// docs/commands.md, "Quick fixes in every client"):
//   - "Show what changed" (diff): a window/showMessage with the diff
//     (Neovim and eglot print it; the VS Code extension and the Neovim
//     plugin handle gloss.show themselves and open the diff in a buffer);
//   - "Edit memory" (edit): the Markdown file is opened with
//     window/showDocument by the engine; a client without showDocument
//     gets a message naming the file, and a personal memory (no file) a
//     message saying how to edit it.
func (s *Server) present(a api.ShowArgs, r api.ShowResult) {
	if a.Diff {
		diff := strings.TrimSpace(r.Diff)
		if diff == "" {
			diff = "(the code is as written)"
		}
		s.showMessage(3, fmt.Sprintf("gloss: what changed under “%s”:\n%s", r.Title, diff))
	}
	if !a.Edit {
		return
	}
	s.mu.Lock()
	canShow := s.caps.Window.ShowDocument.Support
	s.mu.Unlock()
	switch {
	case r.File == "":
		s.showMessage(3, fmt.Sprintf("gloss: “%s” is a personal memory, kept in the store without a file: change its text with gloss.update (Neovim :GlossEdit, VS Code “Edit” in the Memories view), or make it a project memory with gloss.share to edit it as .gloss/memories/%s.md", r.Title, r.ID))
	case !canShow:
		s.showMessage(3, fmt.Sprintf("gloss: edit “%s” in %s (this editor cannot open it from gloss); saving it updates the memory", r.Title, r.File))
	}
}
