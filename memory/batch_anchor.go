package memory

import (
	"github.com/gloss-dev/gloss/index"
)

// relResult is one cached answer of Workspace.RelPath.
type relResult struct {
	rel string
	err error
}

// relPath is w.RelPath(p) computed once per batch (it resolves symlinks:
// a few system calls per request otherwise).
func (st *batchState) relPath(w *Workspace, p string) (string, error) {
	if r, ok := st.rels[p]; ok {
		return r.rel, r.err
	}
	rel, err := w.RelPath(p)
	st.rels[p] = relResult{rel, err}
	return rel, err
}

// storedFile returns the file rel as its stored index record describes it
// (index.RecordFile: definitions without a parse) when the file on disk
// is the content that was indexed, else nil (not indexed, changed since,
// unreadable, or a language gloss does not parse): the caller then
// parses. Answers are cached for the batch.
func (w *Workspace) storedFile(rel string, st *batchState) *index.File {
	if f, ok := st.stored[rel]; ok {
		return f
	}
	st.stored[rel] = nil
	lang := index.LanguageFor(rel)
	if lang == nil {
		return nil
	}
	rec, err := w.Store.File(rel)
	if err != nil || rec == nil {
		return nil
	}
	src, err := index.ReadSourceFile(w.Root, rel, w.maxFileSize())
	if err != nil || index.CheckContent(src) != "" {
		return nil
	}
	f := index.RecordFile(rec, lang, src)
	st.stored[rel] = f
	return f
}

// storedLinesAnchor anchors the 0-based lines first..last of the stored
// file f when they cover exactly one definition (a symbol anchor, as
// anchorAt makes it); ok is false when they do not, and the caller parses
// the file for a span anchor. Out-of-range lines give anchorAt's error.
func (w *Workspace) storedLinesAnchor(f *index.File, first, last int) (a Anchor, ok bool, err error) {
	if err := checkLines(f, first, last); err != nil {
		return Anchor{}, false, err
	}
	d := definitionAt(f, first, last)
	if d == nil {
		return Anchor{}, false, nil
	}
	return w.symbolAnchor(f, *d), true, nil
}

// needsParse reports whether the line request req (rel its path) needs a
// parse of its file: false when its stored record places it on a
// definition (storedLinesAnchor).
func (w *Workspace) needsParse(req RememberRequest, rel string, st *batchState) bool {
	f := w.storedFile(rel, st)
	if f == nil {
		return true
	}
	end := req.EndLine
	if end == 0 {
		end = req.StartLine
	}
	first, last := req.StartLine-1, end-1
	if checkLines(f, first, last) != nil {
		return false // anchorLines reports it without a parse
	}
	return definitionAt(f, first, last) == nil
}
