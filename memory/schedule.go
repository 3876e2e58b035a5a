package memory

// Foreground marks foreground work on w (an editor request) until release
// is called: a running indexing run starts no new parse meanwhile
// (index.Indexer.Foreground), so the request is answered from what is
// indexed so far without competing with the parses for the cores.
func (w *Workspace) Foreground() (release func()) {
	if w.Indexer == nil {
		return func() {}
	}
	return w.Indexer.Foreground()
}

// PrioritizeIndex asks a running (or the next) indexing run to parse the
// file at path (absolute, or relative to the current directory) before the
// files still queued: an editor opened it. Paths outside the workspace
// are ignored.
func (w *Workspace) PrioritizeIndex(path string) {
	if w.Indexer == nil {
		return
	}
	if rel, err := w.RelPath(path); err == nil {
		w.Indexer.Prioritize(rel)
	}
}
