package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/index/bm25"
	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/internal/memo"
	"github.com/gloss-dev/gloss/internal/syncx"
	"github.com/gloss-dev/gloss/internal/timing"
	"github.com/gloss-dev/gloss/memory/confidence"
	"github.com/gloss-dev/gloss/scip"
)

// MaxSearchLimit caps the number of results Search returns (and asks the
// full-text index for, twice as many): larger limits, such as
// `gloss search -n 4611686018427387904`, are lowered to it instead of
// overflowing.
const MaxSearchLimit = 10000

// clampSearchLimit returns limit within 1..MaxSearchLimit; 0 or less means
// the default of 20.
func clampSearchLimit(limit int) int {
	switch {
	case limit <= 0:
		return 20
	case limit > MaxSearchLimit:
		return MaxSearchLimit
	}
	return limit
}

// searchSchema versions the full-text document layout (searchDoc) and
// index format (3: index.BM25Text). A directory written with another
// version, or one that cannot be opened, is rebuilt from Pebble (the store
// of record).
const searchSchema = "3"

// searchFields are the full-text fields of a memory and their boosts.
var searchFields = map[string]float64{"title": 3, "tags": 2, "symbols": 2, "body": 1, "words": 1, "paths": 1, "type": 1, "code": 0.5}

// searchDoc is the full-text document of m: title, body, tags, type, the
// names of its anchored symbols (as written and split into words), its
// anchor paths, the words of identifiers in its title and body
// ("moveFilesToPermanentStorage" → "move files to permanent storage"), and
// the words of the identifiers in its anchored code (Anchor.Snapshot).
// Every field is analyzed as English (index.FullText).
func searchDoc(m *Memory) index.Doc {
	var syms, paths, code []string
	for _, a := range m.Anchors {
		if a.Symbol != "" {
			if w := symbolTextsOf(a.Symbol).search; w != "" {
				syms = append(syms, w)
			}
		}
		paths = append(paths, pathWords(a.Path))
		code = append(code, ident.Split(a.Snapshot))
	}
	return index.Doc{ID: m.ID, Fields: map[string]string{
		"title": m.Title, "body": m.Body, "tags": strings.Join(m.Tags, " "), "type": m.Type,
		"symbols": strings.Join(syms, " "), "paths": strings.Join(paths, " "),
		"words": ident.Split(m.Title + " " + m.Body), "code": strings.Join(code, " "),
	}}
}

// symbolTextsMemo and pathWordsMemo memoize symbolTextsOf and
// pathWords: the memories of a batch anchor to a few thousand symbols and
// files, each many times (scip.Parse and identifier splitting were a
// tenth of the full-text update of a +80,000 batch, pprof;
// docs/benchmarks.md).
var symbolTextsMemo, pathWordsMemo = memo.Map[symbolTexts]{Max: 1 << 14}, memo.Map[string]{Max: 1 << 14}

// symbolTexts are what the documents of a memory take from an anchor's
// symbol, from one parse of it: search is the "symbols" field text
// (searchDoc: each descriptor's name, then its words, joined by spaces),
// vector the symbol's part of vectorText (its last descriptor's name and
// words, "Name (words) "). Both are "" for a symbol that does not parse
// or has no descriptor.
type symbolTexts struct {
	search, vector string
}

// symbolTextsOf returns the symbolTexts of sym.
func symbolTextsOf(sym string) symbolTexts {
	if t, ok := symbolTextsMemo.Get(sym); ok {
		return t
	}
	var t symbolTexts
	if p, err := scip.Parse(sym); err == nil && len(p.Descriptors) > 0 {
		parts := make([]string, 0, 2*len(p.Descriptors))
		for _, d := range p.Descriptors {
			parts = append(parts, d.Name, ident.Split(d.Name))
		}
		t.search = strings.Join(parts, " ")
		name := p.Descriptors[len(p.Descriptors)-1].Name
		t.vector = name + " (" + parts[len(parts)-1] + ") "
	}
	symbolTextsMemo.Put(sym, t)
	return t
}

// pathWords returns the "paths" field text of an anchor in path: the
// path, a space and its words (ident.Split).
func pathWords(path string) string {
	if w, ok := pathWordsMemo.Get(path); ok {
		return w
	}
	w := path + " " + ident.Split(path)
	pathWordsMemo.Put(path, w)
	return w
}

// searchDocs returns searchDoc of each of mems, made on up to GOMAXPROCS
// goroutines (identifier splitting was 1 CPU-s of a +80,000 batch's
// main goroutine, pprof, docs/benchmarks.md).
func searchDocs(mems []*Memory) []index.Doc { return docsOf(mems, searchDoc) }

// docsOf returns doc of each of mems, made on up to GOMAXPROCS
// goroutines (syncx.Ranges) when there are enough of them to share.
func docsOf(mems []*Memory, doc func(*Memory) index.Doc) []index.Doc {
	out := make([]index.Doc, len(mems))
	_ = syncx.Ranges(len(mems), 64, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			out[i] = doc(mems[i])
		}
		return nil
	})
	return out
}

// memoryTextDir is the directory of the memories' full-text index
// (index.BM25Text) in the workspace's data directory; legacyTextDirs are
// what earlier versions kept there instead (a Bluge index and its saved
// BM25 form), removed when the index is built anew.
const memoryTextDir = "text"

var legacyTextDirs = []string{"bluge", "memories.bm25"}

// openSearch opens the full-text index, rebuilding it from Pebble when it
// is missing, of another schema, unreadable, or out of step with the store:
// its generation differs from the store's (Store.MemoryGeneration, bumped
// in the same Pebble batch as every memory write, so a crash between the
// store's write and the index's leaves them different). Opening an index
// in step reads no memory record and counts no keys: only a store at
// generation 0 (written before generations were kept) is compared by
// document count. The caller holds searchMu.
func (w *Workspace) openSearch() (index.Derived, error) {
	if w.search != nil {
		return w.search, nil
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, err
	}
	ft, ok, err := index.OpenBM25Text(filepath.Join(w.Dir, memoryTextDir), searchSchema)
	if err != nil {
		return nil, err
	}
	if ok {
		g, known := ft.Generation()
		ok = known && g == gen
		if ok && gen == 0 {
			n, cerr := ft.Count()
			stored, serr := w.Store.MemoryCount()
			ok = cerr == nil && serr == nil && n == uint64(stored)
		}
	}
	if !ok {
		for _, old := range legacyTextDirs {
			_ = os.RemoveAll(filepath.Join(w.Dir, old))
		}
		mems, err := w.List()
		if err == nil {
			err = ft.Rebuild(searchDocs(mems), gen)
		}
		if err != nil {
			_ = ft.Close()
			return nil, err
		}
	}
	w.search = ft
	timing.Mark("memory text index open")
	return ft, nil
}

// indexDerived applies memory changes, which brought the store to
// generation gen, to the derived indexes: the full-text index
// (indexText), then the vector index (indexVectors). Failures do not fail
// the caller (Pebble already holds the truth); an index is marked for
// rebuild instead.
func (w *Workspace) indexDerived(mems []*Memory, deleted []string, gen uint64) {
	w.indexText(mems, deleted, gen)
	w.indexVectors(mems, deleted, gen)
}

// indexText applies memory changes, which brought the store to
// generation gen, to the memory full-text index under searchMu; a failed
// update marks the index for a rebuild (dropSearch).
func (w *Workspace) indexText(mems []*Memory, deleted []string, gen uint64) {
	docs := searchDocs(mems)
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	ft, err := w.openSearch()
	if err != nil {
		return
	}
	if err := ft.Update(docs, deleted, gen); err != nil {
		w.dropSearch(ft)
	}
}

// dropSearch marks the open search index ft for a rebuild and closes it,
// so that its next use rebuilds it from the store. searchMu is held.
func (w *Workspace) dropSearch(ft index.Derived) {
	ft.Invalidate()
	_ = ft.Close()
	if w.search == ft {
		w.search = nil
	}
}

// SearchHit is one search result.
type SearchHit struct {
	Memory *Memory `json:"memory"`
	// Score is the BM25 score of the memory text index (higher is better), lowered by half for
	// stale memories, which are labelled but never hidden.
	Score float64 `json:"score"`
}

// Search runs a BM25 query over memory titles (boost 3), tags and anchor
// symbol names (boost 2), bodies and paths (boost 1). Identifiers are
// split into words on the index side, so "file upload" finds
// createFileUploads. It returns at most limit hits (0: 20), best first,
// ties by id.
func (w *Workspace) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fmt.Errorf("empty search query")
	}
	limit = clampSearchLimit(limit)
	scored, err := w.textRanking(ctx, query, limit*2)
	if err != nil {
		return nil, err
	}
	var hits []SearchHit
	for _, sc := range scored {
		m, err := w.get(sc.ID)
		if errors.Is(err, ErrNotFound) {
			continue // forgotten since it was indexed
		}
		if err != nil {
			return nil, err // an unreadable store
		}
		score := sc.Score * confidence.SourceTrust(m.Source)
		if m.Stale() {
			score /= 2
		}
		hits = append(hits, SearchHit{Memory: m, Score: score})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Memory.ID < hits[j].Memory.ID
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// textRanking returns the BM25 ranking of memories for query (best
// first, ties by id), at most n, from the memory text index
// (index.BM25Text: in memory once loaded, as the daemon's is by
// WarmText, else the query terms' part of its base on disk).
// A damaged index (bm25.ErrSavedCorrupt) is rebuilt from the store and
// asked again.
func (w *Workspace) textRanking(ctx context.Context, query string, n int) ([]index.Scored, error) {
	defer timing.Mark("memory text search")
	for try := 0; ; try++ {
		ft, err := w.searchIndex()
		if err != nil {
			return nil, err
		}
		out, err := ft.Search(ctx, TextQuery(query, n))
		if err == nil || try > 0 || !errors.Is(err, bm25.ErrSavedCorrupt) {
			return out, err
		}
		w.searchMu.Lock()
		w.dropSearch(ft)
		w.searchMu.Unlock()
	}
}

// TextQuery is the full-text query the text ranker runs for query over
// SearchDocument's fields (their boosts: searchFields; the query's texts:
// queryTexts), at most n hits. Benchmarks build their own index with it
// (glossbench bm25).
func TextQuery(query string, n int) index.Query {
	return index.Query{Texts: queryTexts(query), Fields: searchFields, Limit: n}
}

// SearchDocument is the full-text document of m in the memory index
// (searchDoc).
func SearchDocument(m *Memory) index.Doc { return searchDoc(m) }

// queryTexts returns the texts of a full-text query for query: the query
// itself at weight 1 and its identifiers split into words
// (ident.Split: "ShortString" → "short string") at weight 0.5. When the
// split text differs from the query only in case, as prose does, the
// analyzer (which lowercases) makes the same terms of both, and one text
// of weight 1.5 scores what the two did (BM25 is linear in the boost),
// in half the postings traversed (a query word common to 10,000
// memories is read once per field, not twice).
func queryTexts(query string) []index.Text {
	split := ident.Split(query)
	if strings.EqualFold(split, query) {
		return []index.Text{{Text: query, Weight: 1.5}}
	}
	return []index.Text{{Text: query, Weight: 1}, {Text: split, Weight: 0.5}}
}

// OpenSearch opens the derived full-text index now, rebuilding it from the
// store when it is missing, corrupt, of an older schema or out of step with
// the store (otherwise that happens at the first search). The daemon calls
// it at start. It returns the error of reading the store or writing the
// index.
func (w *Workspace) OpenSearch() error {
	defer w.openVectorsLogged()
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	_, err := w.openSearch()
	return err
}
