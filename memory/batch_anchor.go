package memory

import (
	"bytes"
	"fmt"
	"strings"

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
	if f := st.carried[rel]; f != nil {
		delete(st.carried, rel)
		src, err := index.ReadSourceFileInto(st.readBuf, w.Root, rel, w.MaxFileSize())
		if cap(src) > cap(st.readBuf) {
			st.readBuf = src[:0]
		}
		if err == nil && bytes.Equal(src, f.Src) {
			st.stored[rel] = f
			return f
		}
	}
	f := w.indexedFile(rel, w.Store.FileDefs) // the batch keeps it: no record cache
	st.stored[rel] = f
	return f
}

// indexedFile returns the file rel as its stored index record (read by
// record) describes it, without tokens (index.RecordFile), when the file
// on disk is the content that was indexed; nil when it is not (not
// indexed, changed since, unreadable, or a language gloss does not
// parse).
func (w *Workspace) indexedFile(rel string, record func(string) (*index.FileRecord, error)) *index.File {
	lang := index.LanguageFor(rel)
	if lang == nil {
		return nil
	}
	rec, err := record(rel)
	if err != nil || rec == nil {
		return nil
	}
	src, err := index.ReadSourceFile(w.Root, rel, w.MaxFileSize())
	if err != nil || index.CheckContent(src) != "" {
		return nil
	}
	return index.RecordFile(rec, lang, src)
}

// storedLinesAnchor anchors the 0-based lines first..last of the stored
// file f as anchorAt does: a symbol anchor when they cover exactly one
// definition, else a span anchor from the token stream stored with the
// file's record at the last index run (index.Store.LoadTokens). ok is
// false when that stream is not stored (an older gloss indexed the file),
// and the caller parses the file. Out-of-range lines give anchorAt's
// error.
func (w *Workspace) storedLinesAnchor(f *index.File, first, last int) (a Anchor, ok bool, err error) {
	if err := checkLines(f, first, last); err != nil {
		return Anchor{}, false, err
	}
	if d := definitionAt(f, first, last); d != nil {
		return w.SymbolAnchor(f, *d), true, nil
	}
	if !w.storedTokens(f) {
		return Anchor{}, false, nil
	}
	return w.spanAnchor(f, first, last), true, nil
}

// storedTokens gives the stored file f its stored token stream and reports
// whether it has one (index.Store.LoadTokens). Tests turn it off to check
// that anchors made without a parse equal those made with one.
func (w *Workspace) storedTokens(f *index.File) bool {
	return !w.parseSpans && w.Store.LoadTokens(f)
}

// needsParse reports whether the line request req (rel its path) needs a
// parse of its file: false when its stored record places it on a
// definition or its stored token stream anchors the span
// (storedLinesAnchor).
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
	return definitionAt(f, first, last) == nil && !w.storedTokens(f)
}

// checkLines returns an error when the 0-based lines first..last are not
// an ordered range of lines of f.
func checkLines(f *index.File, first, last int) error {
	if n := f.Lines.Count(); first < 0 || last < first || last >= n {
		return fmt.Errorf("lines %d-%d are out of range: %s has %d lines", first+1, last+1, f.Path, n)
	}
	return nil
}

// definitionAt returns the outermost definition of f that the 0-based
// lines first..last cover exactly (from its doc comment or first line to
// its last line), blank lines at either edge left out, or nil. It reads
// only f.Defs and f's lines, so a file built from its stored record
// (index.RecordFile) answers as its parse does.
func definitionAt(f *index.File, first, last int) *index.Definition {
	// Blank lines at either edge (an editor's paragraph selection) are
	// not part of what the lines cover.
	for last > first && blankLine(f, last) {
		last--
	}
	for first < last && blankLine(f, first) {
		first++
	}
	var best *index.Definition
	for i := range f.Defs {
		d := &f.Defs[i]
		if d.Range.LastLine() == last && first >= d.DocLine && first <= d.NameRange.StartLine {
			if best == nil || d.Range.EndByte-d.Range.StartByte > best.Range.EndByte-best.Range.StartByte {
				best = d
			}
		}
	}
	return best
}

// blankLine reports whether the 0-based line l of f holds only white
// space.
func blankLine(f *index.File, l int) bool {
	return f.Lines != nil && strings.TrimSpace(f.Lines.Text(l)) == ""
}
