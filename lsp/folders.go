package lsp

import (
	"fmt"
	"sort"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// addFolder opens the workspace of a folder URI (once per engine root).
func (s *Server) addFolder(uri string) *folder {
	dir, err := uriToPath(uri)
	if err != nil {
		s.log.Printf("workspace folder: %v", err)
		return nil
	}
	root, err := memory.FindRoot(dir)
	if err != nil {
		s.log.Printf("workspace folder %s: %v", dir, err)
		return nil
	}
	s.mu.Lock()
	for _, f := range s.folders {
		if f.root == root {
			s.mu.Unlock()
			return nil
		}
	}
	s.mu.Unlock()
	w, err := s.pool.Acquire(root, func(err error) { s.log.Printf("%v", err) })
	if err != nil {
		s.log.Printf("open workspace %s: %v", root, err)
		s.showMessage(1, fmt.Sprintf("gloss: cannot open the memory store of %s: %v (retried at the next request in that folder)", root, err))
		s.mu.Lock()
		s.failed[uri] = err
		s.mu.Unlock()
		return nil
	}
	s.mu.Lock()
	delete(s.failed, uri)
	s.mu.Unlock()
	f := &folder{root: w.Root, w: w, ready: make(chan struct{})}
	f.stopReembed = s.watchReembed(f)
	s.mu.Lock()
	for _, g := range s.folders {
		if g.root == f.root { // two URIs of one root added at once
			s.mu.Unlock()
			f.stopReembed()
			_ = s.pool.Release(f.root)
			return nil
		}
	}
	s.folders = append(s.folders, f)
	// Longest root first, so nested roots win.
	sort.SliceStable(s.folders, func(i, j int) bool { return len(s.folders[i].root) > len(s.folders[j].root) })
	s.mu.Unlock()
	s.pool.Subscribe(s, f.root, func() { s.storeChangedElsewhere(f) })
	return f
}

// retryFolders is called when a request names a path outside the open
// folders: a folder under which path lies whose store could not be opened
// (another process held it, a daemon was shutting down) is opened again
// in the background, and the returned error says so; nil when path lies
// in no such folder. One retry per folder runs at a time.
func (s *Server) retryFolders(path string) error {
	s.mu.Lock()
	var uri string
	var ferr error
	for u, err := range s.failed {
		if dir, e := uriToPath(u); e == nil && memory.Contains(dir, path) {
			uri, ferr = u, err
			break
		}
	}
	if uri == "" || s.state == stateShutdown {
		s.mu.Unlock()
		return nil
	}
	start := !s.retrying[uri]
	s.retrying[uri] = true
	s.mu.Unlock()
	if start {
		s.goBG(func() {
			f := s.addFolder(uri)
			s.mu.Lock()
			delete(s.retrying, uri)
			s.mu.Unlock()
			if f != nil {
				s.showMessage(3, "gloss: opened the memory store of "+f.root)
				s.watchFolder(f)
				s.scheduleCheck(f)
			}
		})
	}
	return fmt.Errorf("the memory store of this folder could not be opened (%v); gloss is trying again", ferr)
}

func (s *Server) removeFolder(uri string) {
	dir, err := uriToPath(uri)
	if err != nil {
		return
	}
	root, err := memory.FindRoot(dir)
	if err != nil {
		return
	}
	s.mu.Lock()
	var gone *folder
	for i, f := range s.folders {
		if f.root == root {
			gone = f
			s.folders = append(s.folders[:i:i], s.folders[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if gone != nil {
		s.pool.Unsubscribe(s, gone.root)
		gone.stopReembed()
		s.goBG(func() {
			gone.check.Wait()
			if err := s.pool.Release(gone.root); err != nil {
				s.log.Printf("close %s: %v", gone.root, err)
			}
		})
	}
}

// folderFor returns the folder containing the absolute path p (also
// through symlinks), or nil.
func (s *Server) folderFor(p string) *folder {
	folders := s.allFolders()
	ws := make([]*memory.Workspace, len(folders))
	for i, f := range folders {
		ws[i] = f.w
	}
	w := memory.WorkspaceFor(ws, p)
	for _, f := range folders {
		if f.w == w {
			return f
		}
	}
	return nil
}

func (s *Server) allFolders() []*folder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*folder(nil), s.folders...)
}

// scheduleCheck runs Check for f in the background, coalescing bursts.
func (s *Server) scheduleCheck(f *folder) {
	s.bg.Add(1)
	if !f.check.Run(func() { s.runCheck(f) }, s.bg.Done) {
		s.bg.Done()
	}
}

// runCheck checks f (memory.Workspace.CheckStatesWith: the anchors of the
// files changed since the last check are re-resolved) and republishes its
// diagnostics. The full check (Check: every memory decoded) took 7 CPU-s
// and peaked at 540 MB at a server's start on 100,000 memories
// (docs/benchmarks.md, session 20).
func (s *Server) runCheck(f *folder) { s.runCheckWith(f, index.RunOptions{}) }

// runCheckWith is runCheck with the options o of the check's indexing run
// (index.RunOptions: progress of the start-up indexing).
func (s *Server) runCheckWith(f *folder, o index.RunOptions) {
	if s.closing() {
		return
	}
	res, err := f.w.CheckStatesWith(s.ctx, o)
	f.once.Do(func() { close(f.ready) })
	if err != nil {
		s.log.Printf("check %s: %v", f.root, err)
		return
	}
	s.setProblems(f, res.Files.Problems)
	s.changed(f, nil, res.AnchorsChanged())
	if res.AnchorsChanged() {
		s.pool.Changed(f.root, s)
	}
}

// storeChangedElsewhere is called when another session changed the store
// of f: requests see the change at once, diagnostics and code lenses are
// refreshed in the background.
func (s *Server) storeChangedElsewhere(f *folder) {
	if s.closing() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateShutdown {
		return
	}
	s.goBG(func() { s.changed(f, nil, true) })
}

// changed is called after the store of f changed: it republishes all
// diagnostics of f (mems is the full list, nil to read the stale
// memories, which are all publishFolder reports) and refreshes code
// lenses.
func (s *Server) changed(f *folder, mems []*memory.Memory, refresh bool) {
	if mems == nil {
		var err error
		if mems, err = f.w.StaleMemories(); err != nil {
			s.log.Printf("list %s: %v", f.root, err)
			return
		}
	}
	s.publishFolder(f, mems)
	if refresh {
		s.refreshLenses()
	}
}

// didChangeWatchedFiles applies changed memory files and checks the
// folders whose files changed (git checkout, pull, merge outside the
// editor).
func (s *Server) didChangeWatchedFiles(p didChangeWatchedFilesParams) error {
	touched := map[*folder]bool{}
	for _, e := range p.Changes {
		path, err := uriToPath(e.URI)
		if err != nil {
			continue
		}
		if f := s.folderFor(path); f != nil {
			s.memoryFileChanged(f, path, e.Type == fileDeleted)
			touched[f] = true
		}
	}
	for f := range touched {
		s.scheduleCheck(f)
	}
	return nil
}

// didChangeWorkspaceFoldersParams are the params of
// workspace/didChangeWorkspaceFolders.
type didChangeWorkspaceFoldersParams struct {
	Event struct {
		Added   []WorkspaceFolder `json:"added"`
		Removed []WorkspaceFolder `json:"removed"`
	} `json:"event"`
}

func (s *Server) didChangeWorkspaceFolders(p didChangeWorkspaceFoldersParams) error {
	for _, wf := range p.Event.Removed {
		s.removeFolder(wf.URI)
	}
	var added []*folder
	for _, wf := range p.Event.Added {
		if f := s.addFolder(wf.URI); f != nil {
			added = append(added, f)
		}
	}
	for _, f := range added {
		s.watchFolder(f)
		s.scheduleCheck(f)
	}
	return nil
}

// memoryFileChanged hands a changed file to the engine
// (memory.Workspace.MemoryFileChanged) and republishes when the store
// changed.
func (s *Server) memoryFileChanged(f *folder, path string, deleted bool) {
	changed, err := f.w.MemoryFileChanged(s.ctx, path, deleted)
	if err != nil {
		s.log.Printf("memory file %s: %v", path, err)
		if !deleted {
			s.showMessage(2, "gloss: "+err.Error())
		}
	}
	if changed {
		s.goBG(func() { s.changed(f, nil, true) })
		s.pool.Changed(f.root, s)
	}
}
