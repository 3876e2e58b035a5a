package memory

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/index/bm25"
	"github.com/gloss-dev/gloss/internal/timing"
)

// The saved text index: the daemon's in-memory BM25 index of the memories
// (textTable), as WarmText loaded it from Bluge, written to a file
// (bm25.Index.WriteSaved) that a process without a daemon (a CLI search
// or context) ranks from instead of opening Bluge: it reads the query
// terms' dictionary blocks and postings and the hits' ids only (issue
// #15: Bluge's memory-text search was 37 ms of a CLI search's CPU at
// 100,000 memories, docs/benchmarks.md). The file is tagged with what it
// reflects (savedTextTag: the document layout, the fields, the store's
// memory generation and the Bluge directory's files); a process uses it
// only when the tag of the current store and index is the same, and
// answers from Bluge otherwise, or when a block of the file fails its
// CRC-32. Any write (by a daemon or a CLI) changes the Bluge directory,
// so the file is stale from then until the next daemon warm-up writes it
// anew. Its rankings are the in-memory index's (ties by id), which equal
// Bluge's except where scores tie within rounding (Bluge breaks ties by
// its document number and sums clauses in another order).

// savedTextFile is the saved text index's file name in the workspace's
// data directory.
const savedTextFile = "memories.bm25"

// savedTextTag returns the tag of the saved text index for the store at
// memory generation gen and the Bluge directory as it is now
// (index.FullTextFilesTag), and the error of reading that directory.
func (w *Workspace) savedTextTag(gen uint64) (string, error) {
	files, err := index.FullTextFilesTag(filepath.Join(w.Dir, "bluge"))
	if err != nil {
		return "", err
	}
	fields := slices.Sorted(maps.Keys(searchFields))
	return fmt.Sprintf("gloss saved memory text index 1\nschema %s\nfields %s\nmemory generation %d\n%s",
		searchSchema, strings.Join(fields, " "), gen, files), nil
}

// saveText writes x, just loaded from ft at generation gen, as the saved
// text index when ft is its directory's persisted snapshot and that
// snapshot was tagged before (tag: savedTextTag before loading) and is
// the same after loading. w.writeMu is held, so no write changes x or
// the directory meanwhile. A failure leaves no file of that name (the
// previous one is removed first); it is returned for the caller to
// ignore: the file is only a shortcut.
func (w *Workspace) saveText(ft *index.FullText, x *bm25.Index, gen uint64, tag string) error {
	path := filepath.Join(w.Dir, savedTextFile)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	if tag == "" || gen == 0 || !ft.Persisted() {
		return nil
	}
	after, err := w.savedTextTag(gen)
	if err != nil || after != tag {
		return err
	}
	t0 := time.Now()
	_, err = x.WriteSaved(path, []byte(tag))
	timing.Since("saved text index write", t0)
	return err
}

// savedTextRanking returns the text ranking of query (at most n) from
// the saved text index, and false when there is none, it is stale (its
// tag is not the current one) or unreadable; the caller then ranks with
// Bluge.
func (w *Workspace) savedTextRanking(query string, n int) ([]index.Scored, bool) {
	s, err := bm25.OpenSaved(filepath.Join(w.Dir, savedTextFile))
	if err != nil {
		return nil, false
	}
	defer func() { _ = s.Close() }()
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, false
	}
	tag, err := w.savedTextTag(gen)
	if err != nil || string(s.Tag()) != tag {
		return nil, false
	}
	hits, err := s.Search(index.BM25Clauses(TextQuery(query, n)), max(n, 1), true)
	if err != nil {
		return nil, false
	}
	out := make([]index.Scored, len(hits))
	for i, h := range hits {
		out[i] = index.Scored{ID: h.ID, Score: h.Score}
	}
	timing.Mark("saved text index search")
	return out, true
}
