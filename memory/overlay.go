package memory

import (
	"fmt"

	"github.com/gloss-dev/gloss/index"
)

// ResolveDocument returns the memories anchored in the workspace file path
// (workspace-relative or absolute, validated like RelPath) with every anchor
// re-resolved against content, the unsaved text of an open editor document.
// Nothing is stored: a document overlay is not the truth until it is saved
// and checked. Anchors in other files are resolved against the disk. The
// returned memories are copies; statuses and ranges reflect content.
func (w *Workspace) ResolveDocument(path string, content []byte) ([]*Memory, error) {
	rel, err := w.RelPath(path)
	if err != nil {
		return nil, err
	}
	if reason := index.CheckContent(content); reason != "" {
		return nil, fmt.Errorf("%s: %s content", rel, reason)
	}
	ids, err := w.idsAtPath(rel)
	if err != nil {
		return nil, err
	}
	w.docMu.Lock()
	defer w.docMu.Unlock()
	r, err := w.newResolver()
	if err != nil {
		return nil, err
	}
	defer r.release()
	r.overlay = map[string][]byte{rel: content}
	var out []*Memory
	for _, id := range ids {
		m, err := w.get(id)
		if err != nil {
			return nil, err
		}
		for i := range m.Anchors {
			if m.Anchors[i].Path == rel || r.needs(&m.Anchors[i]) {
				m.Anchors[i] = r.resolve(m.Anchors[i])
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// DocumentDefinitions parses content as the workspace file path and returns
// its definitions (for code lenses and hover on unsaved documents).
func (w *Workspace) DocumentDefinitions(path string, content []byte) ([]index.Definition, error) {
	rel, err := w.RelPath(path)
	if err != nil {
		return nil, err
	}
	f, err := w.parseSource(rel, content)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return f.Defs, nil
}
