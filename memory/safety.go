package memory

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/gloss-dev/gloss/index"
)

// searchIndex opens the derived search index (under searchMu); a panic
// is returned as an error.
func (w *Workspace) searchIndex() (d index.Derived, err error) {
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	defer index.Recover(w.Store.Dir(), "open search index", &err)
	return w.openSearch()
}

// closeSearch closes the search index, if open. searchMu is released and
// a panic is returned as an error.
func (w *Workspace) closeSearch() (err error) {
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	defer index.Recover(w.Dir, "close search index", &err)
	if w.search == nil {
		return nil
	}
	s := w.search
	w.search = nil
	return s.Close()
}

// readMemoryFile reads a memory file (an absolute path under the
// workspace) with index.ReadSourceFile: a FIFO or a symlink out of the
// workspace cannot block or redirect the read.
func (w *Workspace) readMemoryFile(path string) ([]byte, error) {
	rel, err := filepath.Rel(w.Root, path)
	if err != nil {
		return nil, err
	}
	return index.ReadSourceFile(w.Root, filepath.ToSlash(rel), w.MaxFileSize())
}

// ErrNotProject is wrapped by the error of indexing a folder that is not a
// project (no git work tree and no project marker, index.ProjectMarkers).
var ErrNotProject = errors.New("not a project folder")

// checkProject refuses to index a root that is not a project, unless the
// workspace was opened with Options.Force or the store already holds an
// index of it (the user indexed it before).
func (w *Workspace) checkProject() error {
	if w.force || index.IsProjectRoot(w.Root) {
		return nil
	}
	if gen, err := w.Store.Generation(); err == nil && gen > 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: it is not in a git work tree and has none of %s; refusing to index it (run `gloss index --force` to index it anyway)",
		w.Root, ErrNotProject, "go.mod, package.json, pyproject.toml, Cargo.toml, .gloss/ or another project file")
}

// ReadFile reads a workspace file given by absolute path (or relative to
// the current directory) the safe way (index.ReadSourceFile): only a
// regular file inside the workspace, not under .git, of at most the
// --max-file-size limit, without blocking on a FIFO. Adapters (the
// language server) use it instead of os.ReadFile for documents on disk.
func (w *Workspace) ReadFile(path string) ([]byte, error) {
	return w.ReadFileInto(nil, path)
}

// ReadFileInto is ReadFile reading into dst's room
// (index.ReadSourceFileInto): the result aliases dst when it fit.
func (w *Workspace) ReadFileInto(dst []byte, path string) ([]byte, error) {
	rel, err := w.RelPath(path)
	if err != nil {
		return nil, err
	}
	return index.ReadSourceFileInto(dst, w.Root, rel, w.MaxFileSize())
}
