package memory

import (
	"errors"
	"fmt"

	"github.com/gloss-dev/gloss/index"
)

// Anchorable returns an error saying why memories cannot be anchored in
// content, the text of the workspace file rel, or nil: content over the
// indexing size limit (--max-file-size) or not source text (binary,
// generated or minified: index.CheckContent).
func (w *Workspace) Anchorable(rel string, content []byte) error {
	if max := w.MaxFileSize(); int64(len(content)) > max {
		return fmt.Errorf("%s is %d bytes, over the %d-byte limit of indexed files (--max-file-size): gloss does not follow code there", rel, len(content), max)
	}
	if reason := index.CheckContent(content); reason != "" {
		return fmt.Errorf("%s: %s content", rel, reason)
	}
	return nil
}

// ResolveDocumentDefs is ResolveDocument that also returns the definitions
// of content, parsing it once (a second parse would dominate the cost of a
// language server's per-keystroke update on large files). The definitions
// are nil when content is of a language gloss does not parse. Content
// over the indexing size limit (--max-file-size) is not parsed: it gives
// an error at once, as such files are not indexed either, rather than a
// parse of megabytes on every keystroke.
func (w *Workspace) ResolveDocumentDefs(path string, content []byte) ([]*Memory, []index.Definition, error) {
	rel, err := w.RelPath(path)
	if err != nil {
		return nil, nil, err
	}
	if err := w.Anchorable(rel, content); err != nil {
		return nil, nil, err
	}
	ids, err := w.idsAtPath(rel)
	if err != nil {
		return nil, nil, err
	}
	w.docMu.Lock()
	defer w.docMu.Unlock()
	r, err := w.newResolver()
	if err != nil {
		return nil, nil, err
	}
	defer r.release()
	r.overlay = map[string][]byte{rel: content}
	var defs []index.Definition
	if f := r.parsed(rel); f != nil {
		defs = append(defs, f.Defs...)
	}
	if errors.Is(r.overlayErr, index.ErrInterrupted) {
		return nil, nil, r.overlayErr // not a resolution: the document was closed
	}
	var out []*Memory
	for _, id := range ids {
		m, err := w.getRecord(id) // lifecycle after resolution, below
		if err != nil {
			return nil, nil, err
		}
		for i := range m.Anchors {
			if m.Anchors[i].Path == rel || r.needs(&m.Anchors[i]) {
				m.Anchors[i] = r.resolve(m.Anchors[i])
			}
		}
		w.lifecycle(m) // the confidence of the anchors as resolved
		out = append(out, m)
	}
	return out, defs, nil
}
