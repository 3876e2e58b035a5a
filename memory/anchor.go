package memory

import (
	"bytes"
	"strings"

	"github.com/gloss-dev/gloss/index"
)

const (
	// SnapshotCap caps Anchor.Snapshot in bytes.
	SnapshotCap = 8 << 10
	// ContextLines is the number of lines kept above and below an anchor.
	ContextLines = 3
	// maxSpanTokens caps Anchor.Tokens; longer spans are relocated by
	// their snapshot text only.
	maxSpanTokens = 20000
	// minRenameBody is the number of body tokens below which a body hash is
	// too common ("return nil") to follow a rename by.
	minRenameBody = 8
)

// anchorAt builds an anchor for the 0-based lines first..last of f. When the
// lines cover exactly one definition (from its doc comment or first line to
// its last line) the anchor is a symbol anchor to the outermost such
// definition; otherwise it is a span anchor inside the innermost enclosing
// definition. It returns an error when the lines are out of range.
func (w *Workspace) anchorAt(f *index.File, first, last int) (Anchor, error) {
	if err := checkLines(f, first, last); err != nil {
		return Anchor{}, err
	}
	if best := definitionAt(f, first, last); best != nil {
		return w.SymbolAnchor(f, *best), nil
	}
	return w.spanAnchor(f, first, last), nil
}

// SymbolAnchor returns the anchor (kind symbol, status fresh) of the
// definition d of the parsed file f, as Remember makes it.
func (w *Workspace) SymbolAnchor(f *index.File, d index.Definition) Anchor {
	a := Anchor{
		Path:          f.Path,
		Symbol:        d.Symbol,
		Kind:          KindSymbol,
		Range:         d.Range,
		ContentHash:   d.ContentHash,
		SignatureHash: d.SignatureHash,
		BodyHash:      d.BodyHash,
		DefKind:       d.Kind,
		DefName:       d.Name,
		Status:        StatusFresh,
	}
	if d.BodyTokens >= minRenameBody {
		others, err := w.bodyHashSites(d.BodyHash)
		unique := err == nil
		for _, o := range others {
			if o.Symbol != d.Symbol || o.Path != d.Path {
				unique = false
			}
		}
		a.BodyUnique = unique
	}
	w.fillSnapshot(&a, f)
	return a
}

// spanAnchor anchors the 0-based lines first..last of f.
func (w *Workspace) spanAnchor(f *index.File, first, last int) Anchor {
	r := f.Lines.LineRange(first, last)
	toks := f.Tokens(r.StartByte, r.EndByte)
	// The span's code is its tokens: a span that starts on a doc comment
	// belongs to the definition below it.
	enc := f.Enclosing(r.StartByte, r.EndByte)
	lead, trail := 0, 0
	if n := len(toks); n > 0 {
		enc = f.Enclosing(toks[0].Start, toks[n-1].End)
		lead = f.Lines.LineOf(toks[0].Start) - first
		trail = last - f.Lines.LineOf(max(toks[n-1].End-1, toks[n-1].Start))
	}
	a := Anchor{
		Path:        f.Path,
		Symbol:      enc.Symbol,
		Kind:        KindSpan,
		Range:       r,
		ContentHash: index.HashTokens(toks),
		Status:      StatusFresh,
	}
	if len(toks) <= maxSpanTokens {
		a.Tokens = index.TokenTexts(toks)
		a.LeadLines, a.TrailLines = max(lead, 0), max(trail, 0)
	}
	w.fillSnapshot(&a, f)
	return a
}

// snapshotOf returns the text of the 0-based lines first..last of f as an
// anchor's Snapshot holds it (at most SnapshotCap bytes), sharing f.Src.
func snapshotOf(f *index.File, first, last int) []byte {
	snap := f.Src[f.Lines.Start(first):f.Lines.End(last)]
	return snap[:min(len(snap), SnapshotCap)]
}

// fillSnapshot sets snapshot, context, origin and resolution state of a
// freshly made (or re-verified) anchor from the current file f.
func (w *Workspace) fillSnapshot(a *Anchor, f *index.File) {
	first, last := a.Range.StartLine, a.Range.LastLine()
	a.Snapshot = string(snapshotOf(f, first, last))
	a.ContextBefore, a.ContextAfter = nil, nil
	for l := max(0, first-ContextLines); l < first; l++ {
		a.ContextBefore = append(a.ContextBefore, f.Lines.Text(l))
	}
	for l := last + 1; l <= last+ContextLines && l < f.Lines.Count(); l++ {
		a.ContextAfter = append(a.ContextAfter, f.Lines.Text(l))
	}
	a.OriginPath, a.OriginRange = a.Path, a.Range
	a.FileHash = f.SrcHash()
	a.ResolvedAt = w.now().UTC()
	if gen, err := w.resolvedGeneration(); err == nil {
		a.ResolvedGen = gen
	}
}

// resolver re-resolves anchors against the current index and files. It
// caches file records and parses for one pass; call release when done.
type resolver struct {
	w      *Workspace
	gen    uint64
	metas  map[string]index.FileMeta
	hashes map[string]string
	recs   map[string]*index.FileRecord
	files  map[string]*index.File
	toks   map[string][]index.Token
	// pieceToks caches pieces (index.SplitTokens of toks) by path.
	pieceToks map[string][]index.Token
	// overlay holds unsaved editor content by workspace-relative path; it
	// takes precedence over the file on disk and its stored record.
	overlay map[string][]byte
	// overlayHash caches the content hash of each overlay.
	overlayHash map[string]string
	// overlayErr is the error of the last overlay parse (an
	// index.ErrInterrupted makes the resolution fail).
	overlayErr error
}

func (w *Workspace) newResolver() (*resolver, error) {
	gen, err := w.Store.Generation()
	if err != nil {
		return nil, err
	}
	metas, err := w.Store.FileMetas()
	if err != nil {
		return nil, err
	}
	return &resolver{w: w, gen: gen, metas: metas, hashes: map[string]string{}, recs: map[string]*index.FileRecord{}, files: map[string]*index.File{}, toks: map[string][]index.Token{}, pieceToks: map[string][]index.Token{}}, nil
}

func (r *resolver) release() {
	for p, f := range r.files {
		if _, cached := r.overlay[p]; f != nil && !cached {
			f.Release()
		}
	}
}

// fileHash returns the content hash of a workspace file, "" when missing.
func (r *resolver) fileHash(path string) string {
	if src, ok := r.overlay[path]; ok {
		h, ok := r.overlayHash[path]
		if !ok {
			h = index.HashBytes(src)
			if r.overlayHash == nil {
				r.overlayHash = map[string]string{}
			}
			r.overlayHash[path] = h
		}
		return h
	}
	if m, ok := r.metas[path]; ok {
		return m.Hash
	}
	if h, ok := r.hashes[path]; ok {
		return h
	}
	h := ""
	if src, err := index.ReadSourceFile(r.w.Root, path, r.w.MaxFileSize()); err == nil {
		h = index.HashBytes(src)
	}
	r.hashes[path] = h
	return h
}

// needs reports whether an anchor must be re-resolved: its file changed
// since the last resolution, or it is stale and the index changed since.
func (r *resolver) needs(a *Anchor) bool {
	if r.fileHash(a.Path) != a.FileHash {
		return true
	}
	return IsStale(a.Status) && a.ResolvedGen < r.gen
}

func (r *resolver) record(path string) *index.FileRecord {
	if rec, ok := r.recs[path]; ok {
		return rec
	}
	if _, ok := r.overlay[path]; ok {
		var rec *index.FileRecord
		if f := r.parsed(path); f != nil {
			rec = &index.FileRecord{Path: path, Defs: f.Defs}
		}
		r.recs[path] = rec
		return rec
	}
	rec, _ := r.w.Store.File(path)
	r.recs[path] = rec
	return rec
}

// parsed returns the current parse of a workspace file, or nil when it
// cannot be read.
func (r *resolver) parsed(path string) *index.File {
	if f, ok := r.files[path]; ok {
		return f
	}
	var f *index.File
	var err error
	if src, ok := r.overlay[path]; ok {
		f, err = r.w.overlayFile(path, src)
		if err != nil {
			r.overlayErr = err
		}
	} else if f = r.indexed(path); f == nil {
		if f, err = r.w.parseFile(path); err == nil {
			// A resolver may live for a whole batch (an ImportSink keeps one
			// for every flush) and parse hundreds of files: keep their
			// tokens and definitions, not their syntax trees (hundreds of
			// bytes of parse arena per source byte).
			f.DropTree()
		}
	}
	if err != nil {
		f = nil
	}
	r.files[path] = f
	return f
}

// indexed returns the file at path built from its index record and
// stored token stream when the file on disk is what was indexed (a check
// indexes first, so a changed file was just parsed and stored), else nil
// and the caller parses it.
func (r *resolver) indexed(path string) *index.File {
	f := r.w.indexedFile(path, r.w.Store.File)
	if f == nil || !r.w.storedTokens(f) {
		return nil
	}
	return f
}

func (r *resolver) tokens(f *index.File) []index.Token {
	if t, ok := r.toks[f.Path]; ok {
		return t
	}
	t := f.Tokens(0, len(f.Src))
	r.toks[f.Path] = t
	return t
}

// pieces returns the pieces of f's whole-file tokens (index.SplitTokens),
// made once per file and resolver, for spans whose tokens were not found
// whole (pieceMatches).
func (r *resolver) pieces(f *index.File) []index.Token {
	if p, ok := r.pieceToks[f.Path]; ok {
		return p
	}
	p := index.SplitTokens(r.tokens(f))
	r.pieceToks[f.Path] = p
	return p
}

// resolve returns a with its status and place brought up to date. While
// the workspace's first index run has not completed (generation 0: a
// fresh clone's first start, or a run stopped before its end), an anchor
// that cannot be found is returned unchanged, its status undecided, not
// deleted: its definition may be in a file the run has not stored yet.
// Its file hash is left as it was, so the first check after the run
// re-resolves it (needs).
func (r *resolver) resolve(a Anchor) Anchor {
	in := a
	if a.Kind == KindSymbol {
		a = r.resolveSymbol(a)
	} else {
		a = r.resolveSpan(a)
	}
	if a.Status == StatusDeleted && r.gen == 0 {
		return in
	}
	a.FileHash = r.fileHash(a.Path)
	a.ResolvedGen = r.gen
	a.ResolvedAt = r.w.now().UTC()
	return a
}

// family groups definition kinds that can replace each other on a rename.
func family(kind string) string {
	switch kind {
	case index.KindFunction, index.KindMethod:
		return "callable"
	case index.KindClass, index.KindStruct, index.KindInterface, index.KindType, index.KindEnum:
		return "type"
	}
	return kind
}

// resolveSymbol implements DESIGN.md "Anchors and staleness", step 1: the
// symbol in the same file, else anywhere in the workspace (file moved), else
// the unique definition of the same file whose symbol differs only in its
// namespace (the package changed: samePlaceDefs), else the unique definition with the same name and identical content (a file
// move that changed the symbol's package or module part), else the unique
// definition with the same body hash (renamed); then compare hashes. Not
// found → deleted at the last known place.
func (r *resolver) resolveSymbol(a Anchor) Anchor {
	var cands []index.Definition
	if rec := r.record(a.Path); rec != nil {
		for _, d := range rec.Defs {
			if d.Symbol == a.Symbol {
				cands = append(cands, d)
			}
		}
	}
	if len(cands) == 0 {
		cands = r.fromStore(r.w.Store.DefsBySymbol(a.Symbol))
	}
	if len(cands) == 0 {
		cands = samePlaceDefs(r.record(a.Path), a) // the file's package changed
	}
	if len(cands) == 0 && a.DefName != "" {
		named := r.fromStore(r.w.Store.DefsByName(a.DefName))
		for _, d := range r.overlayDefs() {
			if d.Name == a.DefName {
				named = append(named, d)
			}
		}
		var ok []index.Definition
		for _, d := range named {
			if d.ContentHash == a.ContentHash && family(d.Kind) == family(a.DefKind) {
				ok = append(ok, d)
			}
		}
		if len(ok) == 1 {
			cands = ok
		}
	}
	if len(cands) == 0 && a.BodyUnique && a.BodyHash != "" {
		same := r.fromStore(r.w.Store.DefsByBodyHash(a.BodyHash))
		for _, d := range r.overlayDefs() {
			if d.BodyHash == a.BodyHash {
				same = append(same, d)
			}
		}
		var ok []index.Definition
		for _, d := range same {
			if family(d.Kind) == family(a.DefKind) {
				ok = append(ok, d)
			}
		}
		if len(ok) == 1 {
			cands = ok
		}
	}
	if len(cands) == 0 {
		a.Status = StatusDeleted
		return a
	}
	d := pick(cands, a)
	a.Path, a.Symbol, a.Range = d.Path, d.Symbol, d.Range
	switch {
	case d.SignatureHash != a.SignatureHash:
		a.Status = StatusSignatureChanged
	case d.BodyHash != a.BodyHash:
		a.Status = StatusChanged
	default:
		a.Status = placeStatus(a)
	}
	return a
}

// fromStore drops stored definitions of overlaid paths: for those the
// unsaved content, not the index, is the truth.
func (r *resolver) fromStore(defs []index.Definition, err error) []index.Definition {
	if err != nil {
		return nil
	}
	if len(r.overlay) == 0 {
		return defs
	}
	out := defs[:0:0]
	for _, d := range defs {
		if _, ok := r.overlay[d.Path]; !ok {
			out = append(out, d)
		}
	}
	return out
}

// overlayDefs returns the definitions of every overlaid document.
func (r *resolver) overlayDefs() []index.Definition {
	var out []index.Definition
	for p := range r.overlay {
		if f := r.parsed(p); f != nil {
			out = append(out, f.Defs...)
		}
	}
	return out
}

// pick chooses among candidate definitions: same path first, then same
// content, then nearest to the last known line.
func pick(cands []index.Definition, a Anchor) index.Definition {
	best := cands[0]
	score := func(d index.Definition) int {
		s := 0
		if d.Path == a.Path {
			s += 1 << 24
		}
		if d.ContentHash == a.ContentHash {
			s += 1 << 23
		}
		dist := d.Range.StartLine - a.Range.StartLine
		if dist < 0 {
			dist = -dist
		}
		return s - min(dist, 1<<22)
	}
	for _, c := range cands[1:] {
		if score(c) > score(best) {
			best = c
		}
	}
	return best
}

// placeStatus is fresh when an unchanged anchor is where it was written (or
// last verified), moved otherwise.
func placeStatus(a Anchor) string {
	if a.Path == a.OriginPath && a.Range.StartLine == a.OriginRange.StartLine && a.Range.LastLine() == a.OriginRange.LastLine() {
		return StatusFresh
	}
	return StatusMoved
}

// findSnapshot looks for a span whose file is gone in the other indexed
// files of the same language, by its exact snapshot text; it returns the
// parsed file when exactly one contains it.
func (r *resolver) findSnapshot(a Anchor) *index.File {
	snap := strings.TrimSpace(a.Snapshot)
	if len(snap) < 20 || len(a.Snapshot) >= SnapshotCap {
		return nil
	}
	lang := index.LanguageFor(a.Path)
	var hit string
	hits := 0
	for p := range r.metas {
		if lang != nil && index.LanguageFor(p) != lang {
			continue
		}
		src, err := index.ReadSourceFile(r.w.Root, p, r.w.MaxFileSize())
		if err != nil || !bytes.Contains(src, []byte(snap)) {
			continue
		}
		hit = p
		hits++
		if hits > 1 {
			return nil
		}
	}
	if hits == 1 {
		return r.parsed(hit)
	}
	return nil
}
