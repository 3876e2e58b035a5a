package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WorkspaceFor returns the workspace of ws whose root contains the
// absolute path p (the first match, so pass the longest roots first), also
// when p reaches it through symlinks; nil when none does.
func WorkspaceFor(ws []*Workspace, p string) *Workspace {
	try := func(p string) *Workspace {
		for _, w := range ws {
			if Contains(w.Root, p) {
				return w
			}
		}
		return nil
	}
	if w := try(p); w != nil {
		return w
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		return try(real)
	} else if err != nil {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return try(filepath.Join(dir, filepath.Base(p)))
		}
	}
	return nil
}

// Contains reports whether the absolute path p is root or inside it
// (lexically; resolve symlinks first).
func Contains(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// ReadFile reads a workspace file (absolute, or relative to the current
// directory; validated like RelPath). Only regular files no larger than
// the indexing size limit are read; anything else is an error.
func (w *Workspace) ReadFile(path string) ([]byte, error) {
	rel, err := w.RelPath(path)
	if err != nil {
		return nil, err
	}
	full := filepath.Join(w.Root, filepath.FromSlash(rel))
	st, err := os.Stat(full)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if max := w.maxFileSize(); st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit of indexed files (--max-file-size)", rel, st.Size(), max)
	}
	return os.ReadFile(full)
}

// ForSymbol returns the memories with an anchor on the SCIP symbol, in id
// (creation) order.
func (w *Workspace) ForSymbol(symbol string) ([]*Memory, error) {
	all, err := w.List()
	if err != nil {
		return nil, err
	}
	var out []*Memory
	for _, m := range all {
		for _, a := range m.Anchors {
			if a.Symbol == symbol {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}
