package memory

import (
	"context"
	"fmt"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// A check that re-resolves more memories than one batch holds
// (checkChunk) writes them all, in several batches, and the check states
// with the last: every anchor moved, the next check resolves nothing,
// and the derived indexes, given no document (none changed), record each
// batch's generation.
func TestCheckViewsWritesInChunks(t *testing.T) {
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	n := 2*checkChunk + 7
	var reqs []RememberRequest
	for i := 0; i < n; i++ {
		reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("note %d", i), Path: repo + "/a.go", StartLine: 10 + i%3, EndLine: 15})
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil || errs[n-1] != nil {
		t.Fatal(errs[0], errs[n-1])
	}
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "// top\n" + storedFixture["a.go"]})
	res, err := w.CheckViews(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != n || res.Resolved != n {
		t.Fatalf("%d updated, %d resolved; want %d", res.Updated, res.Resolved, n)
	}
	moved := 0
	for _, v := range res.Views {
		if v.Anchors[0].Status == StatusMoved {
			moved++
		}
	}
	if moved != n {
		t.Fatalf("%d of %d views moved", moved, n)
	}
	if res, err = w.CheckViews(ctx); err != nil || res.Resolved != 0 {
		t.Fatalf("second check: %d resolved, %v", res.Resolved, err)
	}
	// The moves changed no document, yet the derived indexes are at the
	// store's generation (not rebuilt at their next opening).
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		t.Fatal(err)
	}
	w.searchMu.Lock()
	tg, tok := w.search.Generation()
	w.searchMu.Unlock()
	w.vecs.mu.Lock()
	vg, vok := vecGeneration(w.vecs.idx)
	w.vecs.mu.Unlock()
	if !tok || tg != gen || !vok || vg != gen {
		t.Fatalf("store at generation %d, full-text index at %d (%v), vectors at %d (%v)", gen, tg, tok, vg, vok)
	}
}
