package memory

import (
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
