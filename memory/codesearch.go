package memory

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/index/bm25"
	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/internal/timing"
	"github.com/gloss-dev/gloss/scip"
)

// codeSchema versions the code-symbol full-text document layout (codeDoc).
const codeSchema = "1"

// codeFields are the full-text fields of a code symbol and their boosts:
// the name as written counts most, its words and its container's (the
// type of a method) next, then the doc comment, path and kind.
var codeFields = map[string]float64{"name": 3, "words": 2, "doc": 1, "path": 1, "kind": 0.5}

// codeIndex is the derived full-text index of code definitions (one Bluge
// directory, "bluge-code"), kept at the store's index generation
// (index.Store.Generation), plus the definitions of open documents whose
// unsaved text differs from the store.
type codeIndex struct {
	mu sync.Mutex
	ft *index.FullText // nil until first use
	// pending are document changes not yet applied to ft, by path: the
	// definitions of an unsaved buffer, or nil to restore the stored ones.
	pending map[string][]index.Definition
	// buffers are the definitions of unsaved buffers applied to ft (or
	// pending), by path; fps the fingerprint of each path's definitions
	// as ft holds (or will hold) them.
	buffers map[string][]index.Definition
	fps     map[string]string
	// x is ft loaded into an in-memory BM25 index (WarmCode), kept in
	// step with every change applied to ft (applyCodePaths); nil in a CLI
	// process, and after a failed change (searches then ask ft).
	x *bm25.Index
}

// codeDocID is the document id of definition symbol in path: path first,
// so that a file's documents share a prefix.
func codeDocID(path, symbol string) string { return path + "\x00" + symbol }

// codeDoc is the full-text document of definition d: its name as written,
// the words of its name and of its containers' names (scip descriptors:
// "Command#Execute()." gives "command execute"), its doc comment (with
// identifiers split into words), its path and kind.
func codeDoc(d index.Definition) index.Doc {
	var words []string
	if p, err := scip.Parse(d.Symbol); err == nil {
		for _, ds := range p.Descriptors[min(1, len(p.Descriptors)):] {
			words = append(words, ident.Split(ds.Name))
		}
	} else {
		words = append(words, ident.Split(d.Name))
	}
	return index.Doc{ID: codeDocID(d.Path, d.Symbol), Fields: map[string]string{
		"name": d.Name, "words": strings.Join(words, " "), "doc": d.Doc + "\n" + ident.Split(d.Doc),
		"path": d.Path + " " + ident.Split(d.Path), "kind": d.Kind,
	}}
}

func codeDocs(defs []index.Definition) []index.Doc {
	out := make([]index.Doc, len(defs))
	for i, d := range defs {
		out[i] = codeDoc(d)
	}
	return out
}

// defsFingerprint identifies what codeDoc reads of defs (ranges aside),
// so that an edit that does not change a buffer's definitions writes
// nothing.
func defsFingerprint(defs []index.Definition) string {
	var b strings.Builder
	for _, d := range defs {
		b.WriteString(d.Symbol + "\x00" + d.Kind + "\x00" + d.Doc + "\x01")
	}
	return b.String()
}

// openCode opens the code-symbol index, rebuilding it from every stored
// file record when it is missing, of another schema or not at the store's
// index generation. Opening an index in step reads no file record. The
// caller holds code.mu.
func (w *Workspace) openCode() (*index.FullText, error) {
	if w.code.ft != nil {
		return w.code.ft, nil
	}
	gen, err := w.Store.Generation()
	if err != nil {
		return nil, err
	}
	ft, ok, err := index.OpenFullText(filepath.Join(w.Dir, "bluge-code"), codeSchema)
	if err != nil {
		return nil, err
	}
	if ok {
		g, known := ft.Generation()
		ok = known && g == gen
	}
	if !ok {
		var docs []index.Doc
		err := w.Store.Files(func(r *index.FileRecord) error {
			docs = append(docs, codeDocs(r.Defs)...)
			return nil
		})
		if err == nil {
			err = ft.Rebuild(docs, gen)
		}
		if err != nil {
			_ = ft.Close()
			return nil, err
		}
	}
	w.code.ft = ft
	timing.Mark("bluge code open")
	return ft, nil
}

// syncCode applies an indexing run that took the store from index
// generation prev to now and changed the files changed to the code-symbol
// index, when the index exists on disk at generation prev; otherwise it
// is left for openCode to rebuild at the next code search (so the first
// index of a workspace does not pay for it). Failures mark the index for
// a rebuild.
func (w *Workspace) syncCode(prev uint64, changed []string) {
	if len(changed) == 0 {
		return
	}
	w.code.mu.Lock()
	defer w.code.mu.Unlock()
	ft := w.code.ft
	if ft == nil {
		var ok bool
		var err error
		ft, ok, err = index.OpenFullText(filepath.Join(w.Dir, "bluge-code"), codeSchema)
		if err != nil {
			return
		}
		if g, known := ft.Generation(); !ok || !known || g != prev {
			_ = ft.Close()
			return
		}
		w.code.ft = ft
	}
	now, err := w.Store.Generation()
	if err == nil {
		err = w.applyCodePaths(ft, changed, now)
	}
	if err != nil {
		ft.Invalidate()
		w.code.x = nil
	}
}

// applyCodePaths replaces the documents of paths by the stored
// definitions (paths with an unsaved buffer keep the buffer's) and
// records generation gen when no unsaved buffer remains in the index.
func (w *Workspace) applyCodePaths(ft *index.FullText, paths []string, gen uint64) error {
	var docs []index.Doc
	var deleted []string
	for _, p := range paths {
		defs, buffered := w.code.buffers[p]
		if !buffered {
			rec, err := w.Store.File(p)
			if err != nil {
				return err
			}
			if rec != nil {
				defs = rec.Defs
			}
		}
		d, del, err := codeChange(ft, p, defs)
		if err != nil {
			return err
		}
		docs, deleted = append(docs, d...), append(deleted, del...)
	}
	var err error
	if len(w.code.buffers) > 0 {
		err = ft.UpdateUnsaved(docs, deleted)
	} else {
		err = ft.Update(docs, deleted, gen)
	}
	if x := w.code.x; x != nil {
		if err != nil {
			w.code.x = nil
		} else {
			changed := make(map[string][]bm25.Field, len(docs))
			for _, d := range docs {
				changed[d.ID] = index.BM25Fields(d)
			}
			x.Apply(changed, deleted)
		}
	}
	return err
}

// codeChange returns the documents of defs (the new definitions of path)
// and the ids of path's indexed documents that are gone.
func codeChange(ft *index.FullText, path string, defs []index.Definition) ([]index.Doc, []string, error) {
	old, err := ft.IDsWithPrefix(context.Background(), path+"\x00")
	if err != nil {
		return nil, nil, err
	}
	docs := codeDocs(defs)
	keep := map[string]bool{}
	for _, d := range docs {
		keep[d.ID] = true
	}
	var deleted []string
	for _, id := range old {
		if !keep[id] {
			deleted = append(deleted, id)
		}
	}
	return docs, deleted, nil
}

// noteBuffer records the definitions of the unsaved text of the open
// document rel (from its latest parse); they reach the code-symbol index
// at the next code search. Definitions equal (by defsFingerprint) to what
// the index holds for rel cost nothing.
func (w *Workspace) noteBuffer(rel string, defs []index.Definition) {
	c := &w.code
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fps == nil {
		c.fps, c.pending, c.buffers = map[string]string{}, map[string][]index.Definition{}, map[string][]index.Definition{}
	}
	fp := defsFingerprint(defs)
	old, known := c.fps[rel]
	if !known {
		if rec, err := w.Store.File(rel); err == nil && rec != nil {
			old = defsFingerprint(rec.Defs)
		}
	}
	c.fps[rel] = fp
	if fp == old {
		if _, buffered := c.buffers[rel]; buffered {
			c.buffers[rel] = append([]index.Definition(nil), defs...) // same documents, newer lines
		}
		return
	}
	defs = append([]index.Definition(nil), defs...)
	c.pending[rel], c.buffers[rel] = defs, defs
}

// forgetBuffer restores the stored definitions of rel in the code-symbol
// index (its document was closed).
func (w *Workspace) forgetBuffer(rel string) {
	c := &w.code
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.fps, rel)
	if _, buffered := c.buffers[rel]; buffered {
		delete(c.buffers, rel)
		c.pending[rel] = nil
	}
}

// applyPending writes pending buffer changes to ft. The caller holds
// code.mu.
func (w *Workspace) applyPending(ft *index.FullText) error {
	if len(w.code.pending) == 0 {
		return nil
	}
	paths := make([]string, 0, len(w.code.pending))
	for p := range w.code.pending {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	gen, err := w.Store.Generation()
	if err != nil {
		return err
	}
	if err := w.applyCodePaths(ft, paths, gen); err != nil {
		return err
	}
	w.code.pending = map[string][]index.Definition{}
	return nil
}

// SymbolHit is one hit of the code-symbol search.
type SymbolHit struct {
	// Def is the definition, with its range in the open document's
	// unsaved text when it has one.
	Def index.Definition
	// Score is Bluge's BM25 score (higher is better).
	Score float64
}

// SearchCode runs a BM25 query over code definitions: names as written
// (boost 3), their words and their containers' (2), doc comments, paths
// (1) and kinds (0.5); unsaved buffers of open documents count instead of
// their files. It returns at most limit hits (0: 20), best first, ties by
// path and symbol.
func (w *Workspace) SearchCode(ctx context.Context, query string, limit int) ([]SymbolHit, error) {
	scored, err := w.codeRanking(ctx, query, clampSearchLimit(limit))
	if err != nil {
		return nil, err
	}
	res := make([]Result, len(scored))
	for i, sc := range scored {
		d := stubDef(sc.ID)
		res[i] = Result{Kind: ResultSymbol, Symbol: &d, Score: sc.Score}
	}
	if err := w.resolveSymbols(res); err != nil {
		return nil, err
	}
	var hits []SymbolHit
	for _, r := range res {
		if r.Symbol.Kind != "" { // still defined
			hits = append(hits, SymbolHit{Def: *r.Symbol, Score: r.Score})
		}
	}
	return hits, nil
}

// codeRanking returns the BM25 ranking of code definitions for query
// (document ids codeDocID), at most n, after applying pending buffers.
func (w *Workspace) codeRanking(ctx context.Context, query string, n int) (scored []index.Scored, err error) {
	w.code.mu.Lock()
	defer w.code.mu.Unlock()
	defer index.Recover(w.Store.Dir(), "search code", &err)
	ft, err := w.openCode()
	if err != nil {
		return nil, err
	}
	if err := w.applyPending(ft); err != nil {
		ft.Invalidate()
		w.code.x = nil
		return nil, err
	}
	if x := w.code.x; x != nil {
		q := index.Query{Texts: queryTexts(query), Fields: codeFields, Limit: n}
		hits := x.Search(index.BM25Clauses(q), max(n, 1), true)
		scored = make([]index.Scored, len(hits))
		for i, h := range hits {
			scored[i] = index.Scored{ID: h.ID, Score: h.Score}
		}
		return scored, nil
	}
	q := index.Query{Texts: queryTexts(query), Fields: codeFields, Limit: n}
	defer timing.Mark("bluge code search")
	return ft.Search(ctx, q)
}

// stubDef is the definition a code document id names, with the fields
// the id gives (path, symbol, display name); resolveSymbols fills in the
// rest.
func stubDef(id string) index.Definition {
	path, sym, _ := strings.Cut(id, "\x00")
	return index.Definition{Path: path, Symbol: sym, Name: scip.DisplayName(sym)}
}

// resolveSymbols replaces the stub definitions of symbol results by the
// definitions of the open document's unsaved text or of the store,
// reading each file record once. A definition gone since it was indexed
// keeps its stub (empty Kind).
func (w *Workspace) resolveSymbols(rs []Result) error {
	w.code.mu.Lock()
	defer w.code.mu.Unlock()
	recs := map[string][]index.Definition{}
	for _, r := range rs {
		if r.Kind != ResultSymbol {
			continue
		}
		defs, seen := recs[r.Symbol.Path]
		if !seen {
			if b, buffered := w.code.buffers[r.Symbol.Path]; buffered {
				defs = b
			} else if rec, err := w.Store.File(r.Symbol.Path); err != nil {
				return err
			} else if rec != nil {
				defs = rec.Defs
			}
			recs[r.Symbol.Path] = defs
		}
		for _, d := range defs {
			if d.Symbol == r.Symbol.Symbol {
				*r.Symbol = d
				break
			}
		}
	}
	return nil
}

// closeCode restores the stored definitions of unsaved buffers (so that
// the index on disk is at the store's generation again) and closes the
// code-symbol index.
func (w *Workspace) closeCode() (err error) {
	c := &w.code
	c.mu.Lock()
	defer c.mu.Unlock()
	defer index.Recover(w.Dir, "close code index", &err)
	if c.ft == nil {
		return nil
	}
	for p := range c.buffers {
		c.pending[p] = nil
	}
	c.buffers = map[string][]index.Definition{}
	if err := w.applyPending(c.ft); err != nil {
		c.ft.Invalidate()
	}
	ft := c.ft
	c.ft, c.x = nil, nil
	return ft.Close()
}

// WarmCode loads the code-symbol full-text index (opened, or rebuilt when
// out of step, and with the pending unsaved buffers applied) into an
// in-memory BM25 index (index/bm25, MaxScore pruning) from which the
// code ranker then answers, as the text ranker does from WarmText's:
// Bluge scored every posting of every query term, 1.6 ms of a settled
// daemon search's CPU at load (docs/benchmarks.md). Its rankings are
// Bluge's (same fields, analysis, boosts and BM25 arithmetic:
// TestBM25MatchesBluge, TestWarmCodeMatchesBluge); every later change
// of the index (a re-index, an unsaved buffer) is applied to both, after
// which the BM25 statistics may part from Bluge's (deleted documents
// count until a compaction of the in-memory index or a Bluge merge). The daemon calls it once after its
// warm-up check; a CLI process never does. It returns the error of
// opening, updating or reading the index.
func (w *Workspace) WarmCode(ctx context.Context) (err error) {
	c := &w.code
	c.mu.Lock()
	defer c.mu.Unlock()
	defer index.Recover(w.Store.Dir(), "load code index", &err)
	ft, err := w.openCode()
	if err != nil {
		return err
	}
	if err := w.applyPending(ft); err != nil {
		ft.Invalidate()
		return err
	}
	x, err := ft.LoadBM25(ctx, slices.Sorted(maps.Keys(codeFields)))
	if err != nil {
		return err
	}
	c.x = x
	return nil
}
