package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// Drafts: gloss.remember without text makes a draft (a project memory
// with the text memory.DraftText) and opens its Markdown file for writing
// with window/showDocument. A draft is never left empty:
//   - a client that cannot open documents (no window/showDocument
//     capability) gets an error saying to pass the text, and no draft;
//   - a draft whose file is closed while its text is still DraftText (the
//     user wrote nothing, or closed without saving) is forgotten, which
//     removes its file (gloss.restore can bring it back).

// refuseDraft returns the error for a gloss.remember without text from a
// client that cannot open the draft, or nil.
func (s *Server) refuseDraft(c api.Command, raw []byte) error {
	if c.Name() != api.Remember.Name() {
		return nil
	}
	var a api.RememberArgs
	if json.Unmarshal(raw, &a) != nil || strings.TrimSpace(a.Text) != "" {
		return nil // bad arguments are reported by the command itself
	}
	s.mu.Lock()
	ok := s.caps.Window.ShowDocument.Support
	s.mu.Unlock()
	if ok {
		return nil
	}
	return invalidParams("%s: this editor cannot open a draft to write the memory in (it does not support window/showDocument): pass \"text\" (Neovim: :GlossRemember note <text>; VS Code: the input box)", api.Remember.Name())
}

// discardEmptyDraft forgets the draft memory whose Markdown file at path
// was just closed if its text is still memory.DraftText.
func (s *Server) discardEmptyDraft(f *folder, path string) {
	id := f.w.MemoryFileID(path)
	if id == "" {
		return
	}
	m, err := f.w.Get(id)
	if err != nil || strings.TrimSpace(m.Body) != memory.DraftText {
		return
	}
	// The file must be as gloss wrote it: text the user saved that could
	// not be loaded (a problem in the file) is not discarded.
	if src, err := os.ReadFile(path); err != nil || m.FileSum == "" || index.HashBytes(src) != m.FileSum {
		return
	}
	if _, err := f.w.Forget(id); err != nil {
		s.log.Printf("discard empty draft %s: %v", id, err)
		return
	}
	s.showMessage(3, fmt.Sprintf("gloss: discarded the empty draft %s (nothing was written; gloss.restore brings it back)", id))
	s.goBG(func() { s.changed(f, nil, true) })
	s.pool.Changed(f.root, s)
}
