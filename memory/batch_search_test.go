package memory

import (
	"context"
	"testing"

	"github.com/gloss-dev/gloss/index"
)

// TestBatchSearchable checks a RememberBatch of several chunks: when the
// call returns, a memory of the first, a middle and the last chunk is
// found by full-text search and by its vector, the full-text index is at
// the store's memory generation, and a second batch on the same
// workspace (derived indexes already open) does the same. It runs on a
// new store, whose first batch trains the built-in embedder. (Written for
// branch pipe16, which applied the derived indexes on a goroutine of
// their own and was not kept: docs/benchmarks.md.)
func TestBatchSearchable(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	// word is a term of one memory alone: letters only, since digits
	// split identifiers into words.
	word := func(call, i int) string {
		s := ""
		for n := call*100000 + i; ; n /= 26 {
			s = string(rune('a'+n%26)) + s
			if n < 26 {
				break
			}
		}
		return "zqpipe" + s + "word"
	}
	for call := range 2 {
		n := 2*RememberChunk + 7
		reqs := make([]RememberRequest, n)
		for i := range reqs {
			reqs[i] = RememberRequest{Text: "pipe note " + word(call, i), Path: repo + "/a.go", StartLine: 8, EndLine: 15}
		}
		ms, errs := w.RememberBatch(ctx, reqs)
		for i := range reqs {
			if errs[i] != nil {
				t.Fatalf("call %d, request %d: %v", call, i, errs[i])
			}
		}
		for _, i := range []int{0, RememberChunk + 3, n - 1} {
			hits, err := w.Search(ctx, word(call, i), 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 1 || hits[0].Memory.ID != ms[i].ID {
				t.Fatalf("call %d: search %s: %d hits, want memory %d (%s)", call, word(call, i), len(hits), i, ms[i].ID)
			}
			vec, err := w.VectorSearch(ctx, reqs[i].Text, 3*n)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range vec {
				found = found || h.ID == ms[i].ID
			}
			if !found {
				t.Fatalf("call %d: memory %d is not in the vector index", call, i)
			}
		}
		gen, err := w.Store.MemoryGeneration()
		if err != nil {
			t.Fatal(err)
		}
		ft, ok := w.search.(*index.BM25Text)
		if !ok {
			t.Fatalf("full-text index %T", w.search)
		}
		if g, known := ft.Generation(); !known || g != gen {
			t.Fatalf("call %d: full-text index at generation %d (%v), store at %d", call, g, known, gen)
		}
	}
}
