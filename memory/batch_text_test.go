package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// textBatchRequests returns n requests anchored in a.go of storedFixture,
// the i-th with the unique word quokka<i>.
func textBatchRequests(repo string, n int) []RememberRequest {
	reqs := make([]RememberRequest, n)
	for i := range reqs {
		reqs[i] = RememberRequest{Text: fmt.Sprintf("pool note quokka%04d", i), Path: filepath.Join(repo, "a.go"), StartLine: 3}
	}
	return reqs
}

// openTextFixture opens an indexed workspace over storedFixture.
func openTextFixture(t *testing.T) (*Workspace, string) {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, storedFixture)
	testutil.Commit(t, repo, "fixture")
	w, err := Open(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w, repo
}

// searchFinds fails t unless the full-text (BM25) ranking for word
// ranks first a memory whose body holds word.
func searchFinds(t *testing.T, w *Workspace, word string) {
	t.Helper()
	scored, err := w.textRanking(context.Background(), word, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(scored) == 0 {
		t.Fatalf("full-text search %q: no hits", word)
	}
	m, err := w.get(scored[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Body, word) {
		t.Fatalf("full-text search %q: first hit %q", word, m.Body)
	}
}

// A batch of more than one chunk without duplicate checks updates the
// full-text index once at its end (commitChunk, flushText): afterwards
// every memory of every chunk is found and the index's generation is the
// store's.
func TestBatchFullTextDeferred(t *testing.T) {
	w, repo := openTextFixture(t)
	defer w.Close()
	n := RememberChunk + 150
	_, errs := w.RememberBatch(context.Background(), textBatchRequests(repo, n))
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for _, i := range []int{0, RememberChunk - 1, RememberChunk, n - 1} {
		searchFinds(t, w, fmt.Sprintf("quokka%04d", i))
	}
	ft, err := w.openSearch()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := ft.Generation(); !ok || g != gen {
		t.Fatalf("full-text generation %d (%v), store %d", g, ok, gen)
	}
}

// A process that stops after a chunk's durable write but before its
// deferred full-text update leaves the index at an older generation; the
// next open rebuilds it from Pebble, so the memory is found.
func TestDeferredFullTextRebuiltAfterStop(t *testing.T) {
	w, repo := openTextFixture(t)
	if _, err := w.Remember(context.Background(), textBatchRequests(repo, 1)[0]); err != nil {
		t.Fatal(err)
	}
	reqs := textBatchRequests(repo, 3)[1:]
	st := w.newBatchState()
	st.deferText = true
	out, errs := make([]*Memory, len(reqs)), make([]error, len(reqs))
	w.rememberChunk(context.Background(), reqs, out, errs, st)
	for i, err := range errs {
		if err != nil || out[i] == nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if len(st.textDocs) != len(reqs) {
		t.Fatalf("%d documents held, want %d", len(st.textDocs), len(reqs))
	}
	ft, err := w.openSearch()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := ft.Generation(); g == gen {
		t.Fatalf("full-text generation %d already the store's before the flush", g)
	}
	st.release()
	if err := w.Close(); err != nil { // stop without flushText
		t.Fatal(err)
	}
	w2, err := Open(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	for i := range 3 {
		searchFinds(t, w2, fmt.Sprintf("quokka%04d", i))
	}
}
