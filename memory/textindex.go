package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/index/bm25"
)

// textTable is the daemon's in-memory BM25 index of the memories
// (index/bm25), at one memory generation: the text ranker's answer once
// warmed (WarmText). Bluge scores every posting of every query term; at
// 100,000 memories on prometheus that was 16–24 ms of CPU per query, the
// largest part of a daemon search (issue #15), which MaxScore pruning
// over the same postings cuts. Its rankings are Bluge's (the same fields,
// analysis, boosts and BM25 arithmetic; TestBM25MatchesBluge,
// TestTextTableMatchesBluge). Both count deleted documents in the
// statistics until compaction; the statistics part only after this
// index compacts (it then counts from its postings) or after a Bluge
// merge (which rewrites Bluge's field lengths: docs/benchmarks.md).
// Every memory write applies its changes (update), as for the place
// table; a table that missed one is not used again until warmed anew. A
// CLI process never warms it: loading costs more than its single query.
type textTable struct {
	mu  sync.Mutex
	ok  bool // warmed and in step with the writes since, at gen
	gen uint64
	x   *bm25.Index
}

// index returns the table's index if it answers for the store's
// generation gen, else nil.
func (t *textTable) index(gen uint64) *bm25.Index {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ok || t.gen != gen {
		return nil
	}
	return t.x
}

// update applies a memory write that brought the store to generation gen
// (docs: the changed memories' full-text documents). A table not exactly
// one write behind is dropped.
func (t *textTable) update(docs []index.Doc, deleted []string, gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ok {
		return
	}
	if t.gen == 0 || t.gen+1 != gen { // as placeTable.update
		t.ok, t.x = false, nil
		return
	}
	changed := make(map[string][]bm25.Field, len(docs))
	for _, d := range docs {
		changed[d.ID] = index.BM25Fields(d)
	}
	t.x.Apply(changed, deleted)
	t.gen = gen
}

// WarmText loads the full-text index of the memories into the
// workspace's in-memory BM25 index (textTable), from which the text
// ranker then answers; the daemon calls it once after its warm-up check.
// It holds the write lock while it reads, so that no write falls between
// the generation it records and the index it reads. It returns an error
// of opening or reading the full-text index, or when that index is not
// in step with the store. It then writes the saved text index for
// processes without a daemon (saveText), ignoring a failure to.
func (w *Workspace) WarmText(ctx context.Context) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return err
	}
	d, err := w.searchIndex() // rebuilt from the store when out of step
	if err != nil {
		return err
	}
	ft, ok := d.(*index.FullText)
	if !ok {
		return fmt.Errorf("full-text index of %T cannot be loaded", d)
	}
	if g, known := ft.Generation(); !known || g != gen {
		return fmt.Errorf("full-text index at generation %d, store at %d", g, gen)
	}
	var tag string
	if ft.Persisted() {
		tag, _ = w.savedTextTag(gen) // "" (no saved index) on an error
	}
	x, err := ft.LoadBM25(ctx, slices.Sorted(maps.Keys(searchFields)))
	if err != nil {
		return err
	}
	t := &w.text
	t.mu.Lock()
	t.ok, t.gen, t.x = true, gen, x
	t.mu.Unlock()
	_ = w.saveText(ft, x, gen, tag) // a shortcut for CLI searches: textsaved.go
	return nil
}

// warmTextRanking returns the text ranking of query from the in-memory
// index, and false when the table does not answer (not warmed, or not in
// step with the store).
func (w *Workspace) warmTextRanking(query string, n int) ([]index.Scored, bool, error) {
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, false, err
	}
	x := w.text.index(gen)
	if x == nil {
		return nil, false, nil
	}
	hits := x.Search(index.BM25Clauses(TextQuery(query, n)), max(n, 1), true)
	out := make([]index.Scored, len(hits))
	for i, h := range hits {
		out[i] = index.Scored{ID: h.ID, Score: h.Score}
	}
	return out, true, nil
}
