package lsp

import (
	"context"
	"errors"
	"os"

	"github.com/gloss-dev/gloss/memory"
)

// memoryFilePath is the Markdown file of a project-scope memory, "" for
// personal ones.
func memoryFilePath(w *memory.Workspace, m *memory.Memory) string {
	return w.MemoryFile(m)
}

// showDraft opens a draft memory's Markdown file in the editor (the engine
// writes the file of every project-scope memory it stores).
func (s *Server) showDraft(f *folder, m *memory.Memory) {
	if p := f.w.MemoryFile(m); p != "" {
		s.showDocument(pathToURI(p))
	}
}

// memoryFileChanged applies an edited memory file to its memory, and
// forgets the memory when its file was deleted.
func (s *Server) memoryFileChanged(f *folder, path string, deleted bool) {
	id := f.w.MemoryFileID(path)
	if id == "" {
		return
	}
	if deleted {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			return // recreated since
		}
		m, err := f.w.Get(id)
		if err != nil || m.Scope != memory.ScopeProject {
			return
		}
		if _, err := f.w.Forget(id); err != nil {
			s.log.Printf("forget %s after its file was deleted: %v", id, err)
			return
		}
		s.mutated(f)
		return
	}
	m, err := f.w.SyncMemoryFile(context.Background(), path)
	if err != nil {
		s.log.Printf("memory file %s: %v", path, err)
		s.showMessage(2, "gloss: "+err.Error())
		return
	}
	if m != nil {
		s.mutated(f)
	}
}
