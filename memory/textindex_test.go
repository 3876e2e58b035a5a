package memory

import (
	"context"
	"fmt"
	"math"
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

// TestTextTable checks the daemon's in-memory BM25 index: not used until
// warmed; once warmed, the text ranking is Bluge's (scores to rounding,
// ties in id order); remember and forget reach it, and once compacted it
// ranks as an index built from every stored memory's full-text document
// (so the writes were applied exactly); a write it missed drops it and
// the text ranker falls back to Bluge.
func TestTextTable(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "none", nil)
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		sym, text := wordNote(i)
		remember(t, w, sym, text)
	}
	// Reopened, the full-text index is read without a writer: no Bluge
	// merge (which changes Bluge's statistics) runs between the load and
	// the searches compared with it.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = openVecWorkspace(t, repo, "none", nil)
	defer w.Close()
	queries := []string{"retries capped", "pool opened lazily", "flush timeout caches", "openPool", "retryCap timeout", "note"}
	gen := func() uint64 {
		g, err := w.Store.MemoryGeneration()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if w.text.index(gen()) != nil {
		t.Fatal("a table never warmed answers")
	}
	// check compares the text ranking with an index built by Put from
	// every stored memory's document.
	check := func(when string) {
		t.Helper()
		x := w.text.index(gen())
		if x == nil {
			t.Fatalf("%s: the table does not answer", when)
		}
		x.Compact()
		mems, err := w.List()
		if err != nil {
			t.Fatal(err)
		}
		ref := bm25.New()
		for _, m := range mems {
			d := searchDoc(m)
			ref.Put(d.ID, index.BM25Fields(d))
		}
		for _, q := range queries {
			got, err := w.textRanking(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := ref.Search(index.BM25Clauses(TextQuery(q, 10)), 10, false)
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%s: %q: %d hits, want %d (> 0)", when, q, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9*want[i].Score {
					t.Fatalf("%s: %q hit %d = %v, want %v", when, q, i, got[i], want[i])
				}
			}
		}
	}
	if err := w.WarmText(ctx); err != nil {
		t.Fatal(err)
	}
	ft, err := w.searchIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		got, err := w.textRanking(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		all, err := ft.Search(ctx, TextQuery(q, 1000))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != min(10, len(all)) || len(got) == 0 {
			t.Fatalf("warmed: %q: %d hits, Bluge %d", q, len(got), len(all))
		}
		for i, h := range got {
			ok := false // h is among Bluge's hits of its score
			for _, b := range all {
				ok = ok || b.ID == h.ID && math.Abs(b.Score-h.Score) <= 1e-9*b.Score
			}
			if !ok || math.Abs(all[i].Score-h.Score) > 1e-9*all[i].Score {
				t.Fatalf("warmed: %q hit %d = %v; Bluge %v", q, i, h, all[:len(got)])
			}
		}
	}
	id := remember(t, w, "openPool", "the pool drains idle connections")
	if got, _ := w.textRanking(ctx, "drains idle", 5); len(got) != 1 || got[0].ID != id {
		t.Fatalf("after remember: drains idle = %v, want %s", got, id)
	}
	if _, err := w.Forget(id); err != nil {
		t.Fatal(err)
	}
	check("after forget")
	if got, _ := w.textRanking(ctx, "drains idle", 5); len(got) != 0 {
		t.Fatalf("after forget: drains idle = %v, want none", got)
	}
	w.text.update(nil, nil, gen()+2) // a write the table did not see
	if w.text.index(gen()) != nil {
		t.Fatal("a table that missed a write still answers")
	}
	if got, err := w.textRanking(ctx, "retries capped", 5); err != nil || len(got) == 0 {
		t.Fatalf("Bluge fallback: %v, %v", got, err)
	}
}
