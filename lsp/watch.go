package lsp

import (
	"github.com/gloss-dev/gloss/internal/watch"
)

// startWatcher watches the session's folders itself when the client does
// not offer workspace/didChangeWatchedFiles (Neovim 0.7, eglot without a
// file watcher): changed files go through the same path as the client's
// notifications (didChangeWatchedFiles: memory files applied, the folder
// checked, diagnostics of unopened files published), and a change of git's
// HEAD or index (checkout, pull, reset) checks the folder.
func (s *Server) startWatcher(folders []*folder) {
	w, err := watch.New(s.watched, s.log.Printf)
	if err != nil {
		s.log.Printf("file watcher: %v (changes made outside the editor are seen at the next save)", err)
		return
	}
	s.mu.Lock()
	if s.state == stateShutdown {
		s.mu.Unlock()
		_ = w.Close()
		return
	}
	s.watcher = w
	s.mu.Unlock()
	for _, f := range folders {
		s.watchFolder(f)
	}
}

// watchFolder adds f to the session's own watcher, if it has one.
func (s *Server) watchFolder(f *folder) {
	s.mu.Lock()
	w := s.watcher
	s.mu.Unlock()
	if w == nil {
		return
	}
	if err := w.Add(f.root); err != nil {
		s.log.Printf("watch %s: %v", f.root, err)
	}
}

// stopWatcher closes the session's own watcher.
func (s *Server) stopWatcher() {
	s.mu.Lock()
	w := s.watcher
	s.watcher = nil
	s.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
}

// watched handles a batch of the watcher's events.
func (s *Server) watched(events []watch.Event) {
	if s.closing() {
		return
	}
	var p didChangeWatchedFilesParams
	git := map[*folder]bool{}
	for _, e := range events {
		if e.Git {
			if f := s.folderFor(e.Path); f != nil {
				git[f] = true
			}
			continue
		}
		typ := 2
		if e.Deleted {
			typ = fileDeleted
		}
		p.Changes = append(p.Changes, fileEvent{URI: pathToURI(e.Path), Type: typ})
	}
	_ = s.didChangeWatchedFiles(p)
	for f := range git {
		s.scheduleCheck(f)
	}
}
