package memory

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// gatedOpenAI is a local OpenAI-compatible /v1/embeddings server whose
// vectors are letter counts (26 dimensions). Every request waits for
// gate to be closed (or the client to leave); the first closes started.
// The first failFirst requests answer 503.
type gatedOpenAI struct {
	srv       *httptest.Server
	started   chan struct{}
	gate      chan struct{}
	once      sync.Once
	failFirst atomic.Int32
	requests  atomic.Int32
}

func newGatedOpenAI(t *testing.T) *gatedOpenAI {
	g := &gatedOpenAI{started: make(chan struct{}), gate: make(chan struct{})}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.requests.Add(1)
		g.once.Do(func() { close(g.started) })
		select {
		case <-g.gate:
		case <-r.Context().Done():
			return
		}
		if g.failFirst.Add(-1) >= 0 {
			http.Error(w, `{"error":{"message":"server overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		writeLetterEmbeddings(w, r)
	}))
	t.Cleanup(func() {
		select {
		case <-g.gate:
		default:
			close(g.gate)
		}
		g.srv.Close()
	})
	return g
}

// builtinStore returns a repository whose workspace holds two memories
// embedded with the built-in model, closed, and their ids.
func builtinStore(t *testing.T) (repo, a, b string) {
	t.Helper()
	repo = vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	a = remember(t, w, "retryCap", "zzz zzz the retry cap")
	b = remember(t, w, "openPool", "qqq qqq the database pool")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return repo, a, b
}

// warnings collects Options.Warn's errors.
type warnings struct {
	mu   sync.Mutex
	errs []string
}

func (w *warnings) add(err error) {
	w.mu.Lock()
	w.errs = append(w.errs, err.Error())
	w.mu.Unlock()
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.errs, "\n")
}

// Switching the built-in embedder to a remote one: the opening does not
// re-embed (no request reaches the server), vector search answers with
// the built-in model's vectors and says so, and ReembedChanged (held in
// the middle by the server) keeps them answering, records a memory
// written meanwhile, then swaps in the new model's vectors of every
// memory; the owner file names the new embedder, and the next opening
// finds no change.
func TestEmbedderChangeReembedsBeside(t *testing.T) {
	repo, a, b := builtinStore(t)
	g := newGatedOpenAI(t)
	spec := "openai:fake@" + g.srv.URL
	var warn warnings
	w := openVecWorkspace(t, repo, spec, warn.add)
	defer w.Close()
	ctx := context.Background()
	old := vecIDs(t, w, "retry cap")
	if !strings.HasPrefix(old, a) {
		t.Fatalf("search during the change: %q, want %s first", old, a)
	}
	if m := w.vecs.idx.Model(); !strings.HasPrefix(m, "builtin") {
		t.Fatalf("vectors answering before the re-embedding: %s, want the built-in model's", m)
	}
	if n := g.requests.Load(); n != 0 {
		t.Fatalf("%d requests to the new embedder's server at opening, want 0", n)
	}
	if note := w.VectorsNote(); !strings.Contains(note, "re-embedding for openai:fake") || !strings.Contains(note, "pending") {
		t.Fatalf("note %q", note)
	}
	if !strings.Contains(warn.String(), "the embedder changed") {
		t.Fatalf("warnings %q, want the change reported", warn.String())
	}
	res, err := w.FusedSearch(ctx, SearchRequest{Query: "retry cap", Limit: 5})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Explain.Vectors, "searching the vectors of builtin") {
		t.Fatalf("fused search %v: %+v", err, res)
	}

	if p, err := w.FusionProfile(); err != nil || p != BuiltinFusion {
		t.Fatalf("profile before the re-embedding: %+v %v, want the built-in vectors' profile", p, err)
	}

	errc := make(chan error, 1)
	go func() { errc <- w.ReembedChanged(ctx) }()
	<-g.started
	if got := vecIDs(t, w, "retry cap"); got != old {
		t.Fatalf("search mid-re-embedding: %q, want %q (the old vectors)", got, old)
	}
	if p, err := w.FusionProfile(); err != nil || p != BuiltinFusion {
		t.Fatalf("profile mid-re-embedding: %+v %v, want the built-in vectors' profile", p, err)
	}
	if st, ok := w.Reembedding(); !ok || st.Model != "openai:fake" || st.Total != 2 {
		t.Fatalf("progress mid-re-embedding %+v %v", st, ok)
	}
	c := remember(t, w, "retryCap", "xxx xxx written meanwhile")
	close(g.gate)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if m := w.vecs.idx.Model(); m != "openai:fake" {
		t.Fatalf("vectors after the swap: %s", m)
	}
	for q, id := range map[string]string{"zzz": a, "qqq": b, "xxx": c} {
		if got := vecIDs(t, w, q); !strings.HasPrefix(got, id) {
			t.Errorf("search %s after the swap: %q, want %s first", q, got, id)
		}
	}
	if n, _ := w.vecs.idx.Count(); n != 3 {
		t.Fatalf("%d rows after the swap, want 3", n)
	}
	if note := w.VectorsNote(); note != "" {
		t.Fatalf("note after the swap %q", note)
	}
	if p, err := w.FusionProfile(); err != nil || p != PretrainedFusion {
		t.Fatalf("profile after the swap: %+v %v, want the new embedder's", p, err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, vectorsNextDir)); !os.IsNotExist(err) {
		t.Fatalf("%s after the swap: %v", vectorsNextDir, err)
	}
	if o, ok := w.loadVectorsOwner(); !ok || o.Model != "openai:fake" {
		t.Fatalf("owner file %+v %v", o, ok)
	}
	_ = w.Close()
	w = openVecWorkspace(t, repo, spec, nil)
	defer w.Close()
	if got := vecIDs(t, w, "qqq"); !strings.HasPrefix(got, b) || w.vecs.change.Load() != nil {
		t.Fatalf("reopened: search %q, change %+v", got, w.vecs.change.Load())
	}
}

// A server that fails (503) during the re-embedding: the re-embedding
// retries, its progress reports the error, the old vectors keep
// answering, and it completes once the server answers.
func TestEmbedderChangeRetriesFailingServer(t *testing.T) {
	repo, a, _ := builtinStore(t)
	g := newGatedOpenAI(t)
	g.failFirst.Store(3)
	close(g.gate)
	minP, maxP := ReembedRetryMin, ReembedRetryMax
	ReembedRetryMin, ReembedRetryMax = time.Millisecond, 4*time.Millisecond
	defer func() { ReembedRetryMin, ReembedRetryMax = minP, maxP }()
	w := openVecWorkspace(t, repo, "openai:fake@"+g.srv.URL, nil)
	defer w.Close()
	var mu sync.Mutex
	var errs []string
	stop := w.WatchReembed(func(st ReembedStatus, running bool) {
		if st.Error != "" {
			mu.Lock()
			errs = append(errs, st.Error)
			mu.Unlock()
		}
	})
	defer stop()
	if err := w.ReembedChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) < 3 || !strings.Contains(errs[0], "503") {
		t.Fatalf("errors reported %q, want the 3 failures", errs)
	}
	if got := vecIDs(t, w, "zzz"); !strings.HasPrefix(got, a) || w.vecs.idx.Model() != "openai:fake" {
		t.Fatalf("after the retries: %q with %s", got, w.vecs.idx.Model())
	}
}

// A re-embedding cut short (the workspace closing: its context ends)
// while the server holds a request stops without waiting for the
// request's index.UpdateTimeout (the context reaches the request),
// and leaves the old index valid: the built-in vectors still answer in
// the same workspace; reopened with the old embedder there is no change
// and they answer; reopened with the new one, the re-embedding starts
// again and completes.
func TestEmbedderChangeInterrupted(t *testing.T) {
	repo, a, _ := builtinStore(t)
	g := newGatedOpenAI(t)
	spec := "openai:fake@" + g.srv.URL
	w := openVecWorkspace(t, repo, spec, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.ReembedChanged(ctx) }()
	<-g.started
	cancel()
	// A hang detector, not a speed target: before contexts reached the
	// request, the return took index.UpdateTimeout (15 s).
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted re-embedding: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the re-embedding did not stop within 10 s of its context's end")
	}
	if got := vecIDs(t, w, "retry cap"); !strings.HasPrefix(got, a) || !strings.HasPrefix(w.vecs.idx.Model(), "builtin") {
		t.Fatalf("after the interruption: %q, model %s, want the built-in vectors", got, w.vecs.idx.Model())
	}
	_ = w.Close()
	w = openVecWorkspace(t, repo, "", nil)
	if got := vecIDs(t, w, "retry cap"); !strings.HasPrefix(got, a) || w.vecs.change.Load() != nil || !strings.HasPrefix(w.vecs.idx.Model(), "builtin") {
		t.Fatalf("back on the built-in embedder: %q, model %s", got, w.vecs.idx.Model())
	}
	_ = w.Close()
	close(g.gate)
	w = openVecWorkspace(t, repo, spec, nil)
	defer w.Close()
	if err := w.ReembedChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := vecIDs(t, w, "zzz"); !strings.HasPrefix(got, a) || w.vecs.idx.Model() != "openai:fake" {
		t.Fatalf("after the restart: %q with %s", got, w.vecs.idx.Model())
	}
}

// When the old embedder cannot be built (its model file is gone), the
// vector ranker is skipped until the re-embedding, and says so: no
// vectors of two models are ever compared.
func TestEmbedderChangeSkipsVectors(t *testing.T) {
	repo, _, _ := builtinStore(t)
	g := newGatedOpenAI(t)
	close(g.gate)
	w := openVecWorkspace(t, repo, "", nil)
	if err := os.Remove(w.builtinPath(builtinModelFile)); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	w = openVecWorkspace(t, repo, "openai:fake@"+g.srv.URL, nil)
	defer w.Close()
	if hits, err := w.VectorSearch(context.Background(), "retry cap", 5); err != nil || len(hits) != 0 {
		t.Fatalf("vector search without the old embedder: %v %v, want none", hits, err)
	}
	if note := w.VectorsNote(); !strings.Contains(note, "vector ranker skipped") {
		t.Fatalf("note %q", note)
	}
	if n := g.requests.Load(); n != 0 {
		t.Fatalf("%d requests before the re-embedding", n)
	}
}

// refusedURL returns the URL of a local port that refuses connections
// (a listener opened, then closed).
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close()
	return url
}

// gloss index (IndexWith) after a change to a remote embedder whose
// server refuses connections: the run finishes (bounded retries,
// ReembedForegroundGiveUp) with the files indexed and a
// *VectorsPendingError counting the memories not re-embedded; no memory
// is lost, the old vectors keep answering, a fused search works, and
// the change stays pending for the next run.
func TestIndexGivesUpOnRefusingEmbedder(t *testing.T) {
	repo, a, _ := builtinStore(t)
	minP, maxP, giveUp := ReembedRetryMin, ReembedRetryMax, ReembedForegroundGiveUp
	ReembedRetryMin, ReembedRetryMax, ReembedForegroundGiveUp = time.Millisecond, 4*time.Millisecond, 50*time.Millisecond
	defer func() { ReembedRetryMin, ReembedRetryMax, ReembedForegroundGiveUp = minP, maxP, giveUp }()
	w := openVecWorkspace(t, repo, "openai:fake@"+refusedURL(t), nil)
	defer w.Close()
	errc := make(chan error, 1)
	var st index.Stats
	go func() {
		var err error
		st, err = w.IndexWith(context.Background(), index.RunOptions{})
		errc <- err
	}()
	var err error
	select { // a hang detector, not a speed target
	case err = <-errc:
	case <-time.After(20 * time.Second):
		t.Fatal("IndexWith still retrying after 20 s")
	}
	var pending *VectorsPendingError
	if !errors.As(err, &pending) || pending.Pending != 2 || pending.Total != 2 || pending.Model != "openai:fake" ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("IndexWith: %v, want a *VectorsPendingError of 2 memories", err)
	}
	if st.Files != 1 || st.SymbolsByLang["go"] != 2 {
		t.Fatalf("stats %+v, want a.go and its 2 definitions indexed", st)
	}
	if ms, err := w.List(); err != nil || len(ms) != 2 {
		t.Fatalf("memories after the failure: %d, %v", len(ms), err)
	}
	if got := vecIDs(t, w, "retry cap"); !strings.HasPrefix(got, a) || !strings.HasPrefix(w.vecs.idx.Model(), "builtin") {
		t.Fatalf("vector search after the failure: %q with %s, want the built-in vectors", got, w.vecs.idx.Model())
	}
	if res, err := w.FusedSearch(context.Background(), SearchRequest{Query: "retry cap", Limit: 5}); err != nil || len(res) == 0 {
		t.Fatalf("fused search after the failure: %v, %d results", err, len(res))
	}
	if _, _, _, changed := w.pendingChange(); !changed {
		t.Fatal("the change is no longer pending")
	}
}

// A remote embedder whose server refuses connections from the start:
// writes succeed (the vector index is marked), and a fused search
// answers from the full text and the graph, its explanation saying the
// vector ranker was skipped, instead of failing.
func TestSearchWithRefusingEmbedder(t *testing.T) {
	repo := vecRepo(t)
	var warn warnings
	w := openVecWorkspace(t, repo, "openai:fake@"+refusedURL(t), warn.add)
	defer w.Close()
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := remember(t, w, "retryCap", "zzz zzz the retry cap")
	res, err := w.FusedSearch(context.Background(), SearchRequest{Query: "retry cap", Limit: 5})
	if err != nil {
		t.Fatalf("fused search with the embedder down: %v", err)
	}
	if len(res) == 0 || res[0].Kind != ResultMemory || res[0].Memory.ID != a {
		t.Fatalf("fused search with the embedder down: %+v, want %s first", res, a)
	}
	if !strings.Contains(res[0].Explain.Vectors, "vector ranker skipped") || !strings.Contains(res[0].Explain.Vectors, "connection refused") {
		t.Fatalf("explain.vectors %q, want the skip and its cause", res[0].Explain.Vectors)
	}
}

// FusionProfile reads the owner file once and again only when the file
// was replaced: after another process rewrites it (here with content of
// the same size and the same modification time, so only the file's
// identity tells), the profile follows the file, as it did when every
// search read it.
func TestFusionProfileFollowsOwnerFile(t *testing.T) {
	t.Setenv(FusionEnvVar, "")
	repo, _, _ := builtinStore(t)
	w := openVecWorkspace(t, repo, "builtin", nil)
	defer w.Close()
	vecIDs(t, w, "retry cap") // opens the vectors: the owner file names builtin
	if p, err := w.FusionProfile(); err != nil || p != BuiltinFusion {
		t.Fatalf("profile %+v %v, want BuiltinFusion", p, err)
	}
	if w.vecs.owner.Load() == nil {
		t.Fatal("the owner file's reading is not kept")
	}
	dir := filepath.Join(w.Dir, "vectors")
	path := filepath.Join(dir, vectorsOwnerFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Another process's owner file, of another embedder kind, made as
	// long as this one's by shortening the model id.
	mine, _ := w.loadVectorsOwner()
	other := vectorsOwner{Spec: "ollama:nomic", Model: mine.Model}
	other.Model = other.Model[:max(0, len(other.Model)-(len(other.Spec)-len(mine.Spec)))]
	if err := saveVectorsOwnerIn(dir, other); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, err := os.Stat(path); err != nil || fi2.Size() != fi.Size() {
		t.Fatalf("test setup: rewritten owner file of %v bytes, want %d (%v)", fi2.Size(), fi.Size(), err)
	}
	if p, err := w.FusionProfile(); err != nil || p != PretrainedFusion {
		t.Fatalf("profile after another process's owner file: %+v %v, want PretrainedFusion", p, err)
	}
	if err := saveVectorsOwnerIn(dir, mine); err != nil {
		t.Fatal(err)
	}
	if p, err := w.FusionProfile(); err != nil || p != BuiltinFusion {
		t.Fatalf("profile after the owner file is restored: %+v %v, want BuiltinFusion", p, err)
	}
}
