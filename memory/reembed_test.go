package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
)

// gateEmbedder embeds texts as their letter counts (26 dimensions). Its
// first Embed call closes started and every call waits for release (or
// its context), so that a test holds a re-embedding in the middle; with
// fail set, Embed fails after that.
type gateEmbedder struct {
	started, release chan struct{}
	once             sync.Once
	fail             bool
}

func newGateEmbedder() *gateEmbedder {
	return &gateEmbedder{started: make(chan struct{}), release: make(chan struct{})}
}

func (g *gateEmbedder) Model() string { return "test:letters" }
func (g *gateEmbedder) Dim() int      { return 26 }

func (g *gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.once.Do(func() { close(g.started) })
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if g.fail {
		return nil, errors.New("embedder down")
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, 26)
		for _, c := range strings.ToLower(s) {
			if c >= 'a' && c <= 'z' {
				v[c-'a']++
			}
		}
		embed.Normalize(v)
		out[i] = v
	}
	return out, nil
}

// startReembed runs reembedBeside with e on another goroutine (holding
// the re-embedding lock, as retrainBuiltin does) and returns its result
// channel.
func startReembed(w *Workspace, e embed.Embedder) <-chan error {
	errc := make(chan error, 1)
	w.vecs.reembed.run.Lock()
	go func() {
		defer w.vecs.reembed.run.Unlock()
		errc <- w.reembedBeside(context.Background(), e, 0, nil)
	}()
	return errc
}

// While a re-embedding with a new model is under way (its embedder
// blocked), vector searches answer at once from the old model's index,
// the progress is reported, and a memory written meanwhile is embedded
// with both models; the swap then serves every memory from the new
// model, and the directory it was built in is gone.
func TestReembedKeepsSearching(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	first := remember(t, w, "retryCap", "quokka marsupials hop around the retry loop")
	remember(t, w, "openPool", "the database pool opens lazily")
	if _, err := w.vectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	old := w.vecs.idx.Model()
	before := vecIDs(t, w, "quokka marsupials")
	if !strings.HasPrefix(before, first) {
		t.Fatalf("search before: %q, want %s first", before, first)
	}
	var mu sync.Mutex
	var seen []ReembedStatus
	var ended bool
	stop := w.WatchReembed(func(st ReembedStatus, running bool) {
		mu.Lock()
		defer mu.Unlock()
		if running {
			seen = append(seen, st)
		} else {
			ended = true
		}
	})
	defer stop()

	g := newGateEmbedder()
	errc := startReembed(w, g)
	<-g.started // the new model embeds: the search below must not wait for it
	if got := vecIDs(t, w, "quokka marsupials"); got != before {
		t.Fatalf("search during the re-embedding: %q, want the old model's %q", got, before)
	}
	if st, ok := w.Reembedding(); !ok || st.Phase != "embedding" || st.Model != g.Model() || st.Total != 2 {
		t.Fatalf("status during the re-embedding: %+v, %v", st, ok)
	}
	third := remember(t, w, "retryCap", "wombats burrow under the retry cap")
	if got := vecIDs(t, w, "wombats burrow"); !strings.HasPrefix(got, third) {
		t.Fatalf("write during the re-embedding not in the old index: %q", got)
	}
	if m := w.vecs.idx.Model(); m != old {
		t.Fatalf("model during the re-embedding %s, want %s", m, old)
	}
	close(g.release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if m := w.vecs.idx.Model(); m != g.Model() || w.vecs.emb != embed.Embedder(g) {
		t.Fatalf("model after the swap %s, embedder %v", m, w.vecs.emb)
	}
	if n, _ := w.vecs.idx.Count(); n != 3 {
		t.Fatalf("%d rows after the swap, want 3", n)
	}
	gen, _ := w.Store.MemoryGeneration()
	if g, known := w.vecs.idx.Generation(); !known || g != gen {
		t.Fatalf("index at generation %d (known %v) after the swap, store at %d", g, known, gen)
	}
	if got := vecIDs(t, w, "wombats burrow under the retry cap"); !strings.HasPrefix(got, third) {
		t.Fatalf("search after the swap: %q, want %s first", got, third)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, vectorsNextDir)); !os.IsNotExist(err) {
		t.Fatalf("%s left after the swap: %v", vectorsNextDir, err)
	}
	v, ok, err := index.OpenVectors(filepath.Join(w.Dir, "vectors"), g)
	if err != nil || !ok {
		t.Fatalf("reopen the swapped index: ok %v, %v", ok, err)
	}
	if n, _ := v.Count(); n != 3 {
		t.Fatalf("reopened index has %d rows, want 3", n)
	}
	_ = v.Close()
	if _, ok := w.Reembedding(); ok {
		t.Fatal("a re-embedding still reported after the swap")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[len(seen)-1].Done != seen[len(seen)-1].Total || !ended {
		t.Fatalf("watched progress %+v, ended %v", seen, ended)
	}
}

// A re-embedding that fails (or a process that died in one) leaves the
// old model's index in use; the files it left are removed, and a
// deferred retraining then runs again and completes.
func TestReembedCrashRecovers(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	first := remember(t, w, "retryCap", "quokka marsupials hop around the retry loop")
	if _, err := w.vectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	old := w.vecs.idx.Model()

	g := newGateEmbedder()
	g.fail = true
	errc := startReembed(w, g)
	<-g.started
	close(g.release)
	if err := <-errc; err == nil {
		t.Fatal("re-embedding with a failing embedder succeeded")
	}
	if m := w.vecs.idx.Model(); m != old {
		t.Fatalf("model after a failed re-embedding %s, want %s", m, old)
	}
	if got := vecIDs(t, w, "quokka marsupials"); !strings.HasPrefix(got, first) {
		t.Fatalf("search after a failed re-embedding: %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, vectorsNextDir)); !os.IsNotExist(err) {
		t.Fatalf("%s left after a failed re-embedding: %v", vectorsNextDir, err)
	}

	// A crash mid-rebuild: a half-written new directory, the retraining
	// still deferred.
	markRetrainDue(t, w, true)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(w.Dir, vectorsNextDir)
	if err := os.MkdirAll(next, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{builtinModelFile, "vectors.bin"} {
		if err := os.WriteFile(filepath.Join(next, f), []byte("torn"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w = openVecWorkspace(t, repo, "", nil)
	if got := vecIDs(t, w, "quokka marsupials"); !strings.HasPrefix(got, first) || w.vecs.idx.Model() != old {
		t.Fatalf("search after the crash: %q with model %s, want %s first with %s", got, w.vecs.idx.Model(), first, old)
	}
	if err := w.RetrainDeferred(ctx); err != nil {
		t.Fatal(err)
	}
	if m := w.vecs.idx.Model(); m == old || m != w.vecs.emb.Model() {
		t.Fatalf("model after the restarted retraining %s (before %s, embedder %s)", m, old, w.vecs.emb.Model())
	}
	if n, _ := w.vecs.idx.Count(); n != 1 {
		t.Fatalf("%d rows after the restarted retraining, want 1", n)
	}
	if s, ok := w.loadBuiltinState(); !ok || s.Deferred || s.Model != w.vecs.emb.Model() {
		t.Fatalf("state after the restarted retraining %+v", s)
	}
	if _, err := os.Stat(next); !os.IsNotExist(err) {
		t.Fatalf("%s left after the retraining: %v", vectorsNextDir, err)
	}
	// The swapped files hold the new model and its vectors: a new process
	// (a CLI call) loads them as they are.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2 := openVecWorkspace(t, repo, "", nil)
	defer w2.Close()
	if _, err := w2.vectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if m := w2.vecs.idx.Model(); m == old {
		t.Fatalf("reopened with the old model %s", m)
	}
	if got := vecIDs(t, w2, "quokka marsupials"); !strings.HasPrefix(got, first) {
		t.Fatalf("search after reopening: %q", got)
	}
}
