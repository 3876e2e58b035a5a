package memory

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/index/bm25"
)

// wordNote is the i-th memory of the text index tests on vecRepo: the
// symbol it anchors to (retryCap or openPool, alternating) and a text of
// three of eight words, so BM25 scores vary and repeat across memories.
func wordNote(i int) (sym, text string) {
	words := []string{"retries", "capped", "pool", "opened", "lazily", "timeout", "flush", "caches"}
	sym = []string{"retryCap", "openPool"}[i%2]
	return sym, fmt.Sprintf("%s %s and %s note %d", words[i%8], words[(i*3)%8], words[(i*5+1)%8], i)
}

// TestMemoryTextIndex checks the memory text index (index.BM25Text)
// through the workspace: remembered memories are written to its log,
// which a short-lived process leaves (30 writes: fewer than Close folds
// into the base) and a warmed one's Close folds into the base; a process
// that never warms ranks from the base on disk with the log laid over
// it, a warmed one (WarmText) from memory, both as a bm25.Index given
// every stored memory's document (ids, order, scores to the last bit;
// the fixture has exact ties); remember and forget reach a warmed index;
// a damaged base is rebuilt from the store at the next search, with the
// same rankings.
func TestMemoryTextIndex(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "none", nil)
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		sym, text := wordNote(i)
		if i >= 20 {
			text = "flush timeout twin" // ten memories of equal score
		}
		remember(t, w, sym, text)
	}
	dir := filepath.Join(w.Dir, memoryTextDir)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "log")); err != nil {
		t.Fatalf("no log after 30 writes: %v", err)
	}
	queries := []string{"retries capped", "pool opened lazily", "flush timeout caches", "openPool", "retryCap timeout", "note", "twin", "nothing matches this"}
	// check compares the text ranking with an index built by Put from
	// every stored memory's document (no memory was replaced or deleted
	// since the last rebuild or compaction, so the statistics agree).
	check := func(when string, w *Workspace, ref *bm25.Index) {
		t.Helper()
		if ref == nil {
			mems, err := w.List()
			if err != nil {
				t.Fatal(err)
			}
			ref = bm25.New()
			for _, m := range mems {
				d := searchDoc(m)
				ref.Put(d.ID, index.BM25Fields(d))
			}
		}
		ties := 0
		for _, q := range queries {
			for _, n := range []int{3, 10, 40} {
				got, err := w.textRanking(ctx, q, n)
				if err != nil {
					t.Fatal(err)
				}
				want := ref.Search(index.BM25Clauses(TextQuery(q, n)), n, false)
				if len(got) != len(want) || len(got) == 0 && q != "nothing matches this" {
					t.Fatalf("%s: %q: %d hits, want %d", when, q, len(got), len(want))
				}
				for i := range got {
					if got[i].ID != want[i].ID || math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
						t.Fatalf("%s: %q n %d hit %d = %v, want %v", when, q, n, i, got[i], want[i])
					}
					if i > 0 && got[i].Score == got[i-1].Score {
						ties++
					}
				}
			}
		}
		if ties == 0 {
			t.Fatalf("%s: the fixture has no tied scores", when)
		}
	}

	w = openVecWorkspace(t, repo, "none", nil)
	check("log over the base", w, nil)
	if d, _ := w.searchIndex(); d.(*index.BM25Text).Loaded() {
		t.Fatal("a process that never warmed loaded the index")
	}
	if err := w.WarmText(ctx); err != nil {
		t.Fatal(err)
	}
	check("warmed", w, nil)
	// A warmed index as writes leave it: a forgotten memory still counts
	// in the statistics, as in a bm25.Index it was deleted from.
	mems, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	ref := bm25.New()
	for _, m := range mems {
		d := searchDoc(m)
		ref.Put(d.ID, index.BM25Fields(d))
	}
	id := remember(t, w, "openPool", "the pool drains idle connections")
	if got, _ := w.textRanking(ctx, "drains idle", 5); len(got) != 1 || got[0].ID != id {
		t.Fatalf("after remember: drains idle = %v, want %s", got, id)
	}
	m, err := w.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	d := searchDoc(m)
	ref.Put(d.ID, index.BM25Fields(d))
	if _, err := w.Forget(id); err != nil {
		t.Fatal(err)
	}
	ref.Delete(id)
	check("after forget", w, ref)
	if got, _ := w.textRanking(ctx, "drains idle", 5); len(got) != 0 {
		t.Fatalf("after forget: drains idle = %v, want none", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "log")); !os.IsNotExist(err) {
		t.Fatalf("log after a warmed index closed: %v", err)
	}
	w = openVecWorkspace(t, repo, "none", nil)
	check("base on disk", w, ref)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// Every data block of the base damaged: the next search rebuilds it.
	base := filepath.Join(dir, "base.bm25")
	good, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(good)
	dirOff := binary.LittleEndian.Uint64(bad[len(bad)-24:])
	for i := uint64(8); i < dirOff; i++ {
		bad[i] ^= 0x5a
	}
	if err := os.WriteFile(base, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	w = openVecWorkspace(t, repo, "none", nil)
	defer w.Close()
	check("rebuilt after damage", w, nil)
}
