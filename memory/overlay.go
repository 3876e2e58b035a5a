package memory

import (
	"github.com/gloss-dev/gloss/index"
)

// ResolveDocument returns the memories anchored in the workspace file path
// (workspace-relative or absolute, validated like RelPath) with every anchor
// re-resolved against content, the unsaved text of an open editor document.
// Nothing is stored: a document overlay is not the truth until it is saved
// and checked. Anchors in other files are resolved against the disk. The
// returned memories are copies; statuses and ranges reflect content.
func (w *Workspace) ResolveDocument(path string, content []byte) ([]*Memory, error) {
	mems, _, err := w.ResolveDocumentDefs(path, content)
	return mems, err
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
