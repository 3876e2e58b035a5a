package importgit

import (
	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
)

// comparePartial compares the two versions of a Go file whose path the
// import has no parse of (first sight) by parsing only the declarations
// around the commit's line edits in each version (index.Indexer.
// ParseRegions) instead of one version whole. ok is false when that is
// not possible (another language, a rename, an edit of the package
// clause, a region that does not parse alone, a change too large to
// diff): the caller then parses the file whole. The partial parses are
// not cached (they cannot be re-parsed), so each later commit on the path
// takes this way again until a whole parse enters the cache; the parses of
// single declarations are (im.chunks), so the old version of a declaration
// an earlier commit edited is not parsed again.
func (im *importer) comparePartial(cf *catFile, ps map[*index.Language]*ts.Parser, rel string, ch gitChange, fc *fileChange) (ok bool, skipped string, err error) {
	lang := index.LanguageFor(rel)
	if lang == nil || lang.Name != "go" {
		return false, "", nil
	}
	var src [2][]byte
	for i, blob := range []string{ch.OldBlob, ch.Blob} {
		if src[i], err = im.readBlob(cf, blob); err != nil {
			return false, fileSkipReason(err), ignoreUnreadable(err)
		}
	}
	// Both versions parsed whole without tree-sitter cost less than the
	// declarations around the edits parsed with it, and the new version
	// goes to the cache for the next commit on the path.
	if old, ok := im.fastGo(rel, src[0]); ok {
		if f, ok := im.fastGo(rel, src[1]); ok {
			fc.f, fc.old, fc.blob = f, old, ch.Blob
			im.cache.put(rel, ch.Blob, f)
			fc.diff()
			return true, "", nil
		}
	}
	edits := lineEdits(string(src[0]), string(src[1]))
	if len(edits) == 0 {
		return false, "", nil // identical (mode change) or too large a change
	}
	var oldSpans, newSpans [][2]int
	off := 0
	for _, e := range edits {
		oldSpans = append(oldSpans, [2]int{e.Start, e.End})
		newSpans = append(newSpans, [2]int{e.Start + off, e.Start + off + len(e.New)})
		off += len(e.New) - (e.End - e.Start)
	}
	old, okOld, err := im.w.Indexer.ParseRegions(ps, lang, rel, src[0], oldSpans, im.chunks)
	if err != nil || !okOld {
		return false, "", nil
	}
	f, okNew, err := im.w.Indexer.ParseRegions(ps, lang, rel, src[1], newSpans, im.chunks)
	if err != nil || !okNew {
		return false, "", nil
	}
	fc.f, fc.old, fc.blob = f, old, ch.Blob
	// A definition outside every edit is unchanged: one that a region
	// holds in one version only is not new nor removed. A nested one
	// (a field) is inside an edit when its parent is: its symbol has the
	// parent's name (a renamed type renames its fields).
	for _, d := range touchedDefs(f, old) {
		if inEdit(f, d, newSpans) {
			fc.touched = append(fc.touched, d)
		}
	}
	for _, d := range old.Defs {
		if !hasSymbol(f, d.Symbol) && inEdit(old, d, oldSpans) {
			fc.removed++
		}
	}
	if len(fc.touched) == 0 && fc.removed == 0 {
		fc.same = fc.sameTokens()
	}
	return true, "", nil
}

// inEdit reports whether the definition d of f, or the definition of f
// enclosing it (its Parent, when f holds it), touches one of spans.
func inEdit(f *index.File, d index.Definition, spans [][2]int) bool {
	if overlaps(d.Range, spans) {
		return true
	}
	if d.Parent == "" {
		return false
	}
	for _, p := range f.Defs {
		if p.Symbol == d.Parent && p.Range.StartByte <= d.Range.StartByte && d.Range.EndByte <= p.Range.EndByte {
			return overlaps(p.Range, spans)
		}
	}
	return false
}

// overlaps reports whether r touches one of spans (bounds included, so an
// insertion point at either end counts).
func overlaps(r index.Range, spans [][2]int) bool {
	for _, s := range spans {
		if r.StartByte <= s[1] && s[0] <= r.EndByte {
			return true
		}
	}
	return false
}

// readBlob reads a blob of a code file: an error for a missing, too
// large, binary or generated one (fileSkipReason names it).
func (im *importer) readBlob(cf *catFile, blob string) ([]byte, error) {
	src, err := cf.Blob(blob, im.w.MaxFileSize())
	if err != nil {
		return nil, err
	}
	if reason := index.CheckContent(src); reason != "" {
		return nil, unreadableError{reason}
	}
	if isGenerated(src) {
		return nil, errGenerated
	}
	return src, nil
}
