package memory

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
