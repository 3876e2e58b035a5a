package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
)

func openVecWorkspace(t *testing.T, repo, embedder string, warn func(error)) *Workspace {
	t.Helper()
	w, err := Open(repo, Options{Embedder: embedder, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func vecRepo(t *testing.T) string {
	t.Helper()
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module x\n", "a.go": "package x\n\n// retryCap caps the attempts.\nfunc retryCap() {}\n\n// openPool opens the database pool.\nfunc openPool() {}\n"})
	return repo
}

func remember(t *testing.T, w *Workspace, sym, text string) string {
	t.Helper()
	m, err := w.Remember(context.Background(), RememberRequest{Symbol: sym, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

func vecIDs(t *testing.T, w *Workspace, q string) string {
	t.Helper()
	hits, err := w.VectorSearch(context.Background(), q, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return strings.Join(out, ",")
}

// A store written while vectors were off (generation ahead of the vector
// index) is caught up at the next open; "none" disables vector search.
func TestVectorsGenerationMismatch(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "builtin", nil)
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := remember(t, w, "retryCap", "retry attempts are capped")
	_ = w.Close()
	w = openVecWorkspace(t, repo, "none", nil)
	b := remember(t, w, "openPool", "the database pool is opened once")
	if hits, err := w.VectorSearch(context.Background(), "pool", 5); hits != nil || err != nil {
		t.Fatalf("vectors off: %v, %v", hits, err)
	}
	_ = w.Close()
	w = openVecWorkspace(t, repo, "", nil)
	defer w.Close()
	if got := vecIDs(t, w, "database pool opened"); !strings.HasPrefix(got, b) {
		t.Fatalf("after catching up: %s, want %s first", got, b)
	}
	if got := vecIDs(t, w, "retry attempts capped"); !strings.HasPrefix(got, a) {
		t.Fatalf("search: %s, want %s first", got, a)
	}
	// A forgotten memory leaves the index.
	if _, err := w.Forget(a); err != nil {
		t.Fatal(err)
	}
	if got := vecIDs(t, w, "retry attempts capped"); strings.Contains(got, a) {
		t.Fatalf("search after forget: %s still has %s", got, a)
	}
}

// Retraining the built-in model (here forced by its state) changes the
// model id and re-embeds every memory.
func TestVectorsRetrainReembeds(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	defer w.Close()
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := remember(t, w, "retryCap", "quokka marsupials hop around the retry loop")
	if _, err := w.vectorIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	old := w.vecs.idx.Model()
	markRetrainDue(t, w, false)
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	if now := w.vecs.idx.Model(); now == old || now != w.vecs.emb.Model() {
		t.Fatalf("model after retraining %s (before %s, embedder %s)", now, old, w.vecs.emb.Model())
	}
	if n, _ := w.vecs.idx.Count(); n != 1 {
		t.Fatalf("%d rows after re-embedding, want 1", n)
	}
	if got := vecIDs(t, w, "quokka marsupials"); got != id {
		t.Fatalf("search after retraining: %q, want %s", got, id)
	}
	if s, ok := w.loadBuiltinState(); !ok || s.Changed != 0 || s.Memories != 1 {
		t.Fatalf("state after retraining %+v", s)
	}
}

// A check's index run (index with retrain false) keeps the model when
// retraining is due and marks it deferred; the next Index retrains
// although nothing changed in between.
func TestCheckDefersRetraining(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	remember(t, w, "retryCap", "quokka marsupials hop around the retry loop")
	if _, err := w.vectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	old := w.vecs.idx.Model()
	markRetrainDue(t, w, false)
	if _, err := w.CheckViews(ctx); err != nil {
		t.Fatal(err)
	}
	if now := w.vecs.idx.Model(); now != old {
		t.Fatalf("a check retrained: model %s, before %s", now, old)
	}
	if s, ok := w.loadBuiltinState(); !ok || !s.Deferred || s.Changed < 1000 {
		t.Fatalf("state after the check %+v, want deferred", s)
	}
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if now := w.vecs.idx.Model(); now == old {
		t.Fatalf("Index after a deferred retraining kept model %s", now)
	}
	if s, ok := w.loadBuiltinState(); !ok || s.Deferred || s.Changed != 0 {
		t.Fatalf("state after retraining %+v", s)
	}
}

// A write's index run (IndexKeepModel, as remember and remember --batch
// do) keeps the model when retraining is due, so that the batch's
// vectors and the stored ones share one model, and marks it deferred;
// RetrainDeferred (the daemon's warm-up) then retrains and re-embeds
// every memory, and does nothing once no retraining is deferred.
func TestWriteDefersRetraining(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	first := remember(t, w, "retryCap", "quokka marsupials hop around the retry loop")
	if _, err := w.vectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	old := w.vecs.idx.Model()
	if err := w.RetrainDeferred(ctx); err != nil || w.vecs.idx.Model() != old {
		t.Fatalf("RetrainDeferred with nothing deferred: %v, model %s, before %s", err, w.vecs.idx.Model(), old)
	}
	markRetrainDue(t, w, false)
	if _, err := w.IndexKeepModel(ctx); err != nil {
		t.Fatal(err)
	}
	second := remember(t, w, "retryCap", "wombats burrow under the retry cap")
	if now := w.vecs.idx.Model(); now != old {
		t.Fatalf("a write retrained: model %s, before %s", now, old)
	}
	if s, ok := w.loadBuiltinState(); !ok || !s.Deferred {
		t.Fatalf("state after the write %+v, want deferred", s)
	}
	if err := w.RetrainDeferred(ctx); err != nil {
		t.Fatal(err)
	}
	if now := w.vecs.idx.Model(); now == old || now != w.vecs.emb.Model() {
		t.Fatalf("model after RetrainDeferred %s (before %s, embedder %s)", now, old, w.vecs.emb.Model())
	}
	if n, _ := w.vecs.idx.Count(); n != 2 {
		t.Fatalf("%d rows after re-embedding, want 2", n)
	}
	if got := vecIDs(t, w, "quokka marsupials"); !strings.HasPrefix(got, first) {
		t.Fatalf("search after retraining: %q, want %s first", got, first)
	}
	if got := vecIDs(t, w, "wombats burrow"); !strings.HasPrefix(got, second) {
		t.Fatalf("search after retraining: %q, want %s first", got, second)
	}
	if s, ok := w.loadBuiltinState(); !ok || s.Deferred || s.Changed != 0 || s.Memories != 2 {
		t.Fatalf("state after retraining %+v", s)
	}
}

// fakeOpenAI serves /v1/embeddings with vectors of letter counts; it
// fails with 503 while down is set.
func fakeOpenAI(t *testing.T) (*httptest.Server, *sync.Mutex, *bool) {
	var mu sync.Mutex
	down := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			http.Error(w, `{"error":{"message":"loading model"}}`, http.StatusServiceUnavailable)
			return
		}
		writeLetterEmbeddings(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &mu, &down
}

// A failing remote embedder never fails a memory write; a model change
// re-embeds in the background with progress reported.
func TestVectorsRemoteEmbedder(t *testing.T) {
	repo := vecRepo(t)
	srv, mu, down := fakeOpenAI(t)
	var wmu sync.Mutex
	var warnings []string
	done := make(chan struct{}, 10)
	warn := func(err error) {
		wmu.Lock()
		warnings = append(warnings, err.Error())
		wmu.Unlock()
		if strings.Contains(err.Error(), "embedded 2 of 2") {
			done <- struct{}{}
		}
	}
	w := openVecWorkspace(t, repo, "openai:fake@"+srv.URL, warn)
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := remember(t, w, "retryCap", "zzz zzz")
	mu.Lock()
	*down = true
	mu.Unlock()
	b := remember(t, w, "openPool", "qqq qqq") // the embedder fails: stored anyway
	if _, err := w.Get(b); err != nil {
		t.Fatalf("memory written while the embedder failed: %v", err)
	}
	wmu.Lock()
	joined := strings.Join(warnings, "\n")
	wmu.Unlock()
	if !strings.Contains(joined, "loading model") {
		t.Fatalf("warnings %q, want the embedder's failure", joined)
	}
	mu.Lock()
	*down = false
	mu.Unlock()
	w.vecs.wg.Wait() // the background rebuild the failure started
	w.vecs.mu.Lock()
	err := w.rebuildVectors(context.Background(), w.vecs.idx) // the old model's index complete
	w.vecs.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	// Another model: searches keep the old model's vectors until
	// ReembedChanged (the daemon's warm-up, gloss index) re-embeds.
	w = openVecWorkspace(t, repo, "openai:fake2@"+srv.URL, warn)
	defer w.Close()
	if err := w.OpenSearch(); err != nil {
		t.Fatal(err)
	}
	if got := vecIDs(t, w, "zzz"); !strings.HasPrefix(got, a) {
		t.Fatalf("search zzz before re-embedding: %s, want %s first; %q", got, a, warnings)
	}
	if m := w.vecs.idx.Model(); m != "openai:fake" {
		t.Fatalf("index model %s before re-embedding, want the old one", m)
	}
	if err := w.ReembedChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := vecIDs(t, w, "qqq"); !strings.HasPrefix(got, b) {
		t.Fatalf("search qqq: %s, want %s first", got, b)
	}
	if got := vecIDs(t, w, "zzz"); !strings.HasPrefix(got, a) {
		t.Fatalf("search zzz: %s, want %s first", got, a)
	}
	if m := w.vecs.idx.Model(); m != "openai:fake2" {
		t.Fatalf("index model %s", m)
	}
}

func TestCommentUnits(t *testing.T) {
	src := "package x\n\n// F is documented.\nfunc F() {\n\t// retry the charge\n\t// three times at most\n\tcall(\"http://host\") // the gateway throttles\n\n\tx := 1\n}\n"
	rec := &index.FileRecord{Lang: "go", Defs: []index.Definition{{Name: "F", DocLine: 2, Range: index.Range{StartLine: 3}}}}
	var got []string
	for _, u := range commentUnits(rec, []byte(src)) {
		got = append(got, strings.Join(strings.Fields(u.Body), " "))
	}
	if want := "retry the charge three times at most the gateway throttles"; len(got) != 1 || got[0] != want {
		t.Fatalf("comment units %q, want [%q] (no doc comment, no URL)", got, want)
	}
	// Python, a last line without a newline, blank lines between blocks.
	py := &index.FileRecord{Lang: "python"}
	got = nil
	for _, u := range commentUnits(py, []byte("# first\n\nx = 1  # second\n# third")) {
		got = append(got, strings.Join(strings.Fields(u.Body), " "))
	}
	if want := []string{"first", "second third"}; !slices.Equal(got, want) {
		t.Fatalf("Python comment units %q, want %q", got, want)
	}
}

// A cold Index of a workspace without memories trains no built-in model
// (nothing needs vectors yet); the first memory's vectors train it (on
// the indexed code: it is embedded before it is stored), and search finds
// the memory.
func TestColdIndexTrainsAtFirstUse(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "", nil)
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.builtinPath(builtinModelFile)); !os.IsNotExist(err) {
		t.Fatalf("model after a cold index without memories: %v, want none", err)
	}
	if _, ok := w.loadBuiltinState(); ok {
		t.Fatal("state saved without a model")
	}
	id := remember(t, w, "retryCap", "quokka marsupials hop around the retry loop")
	if got := vecIDs(t, w, "quokka marsupials"); got != id {
		t.Fatalf("search after the first memory: %q, want %s", got, id)
	}
	if _, err := os.Stat(w.builtinPath(builtinModelFile)); err != nil {
		t.Fatalf("no model after the first use: %v", err)
	}
	s, ok := w.loadBuiltinState()
	if !ok || s.Files == 0 {
		t.Fatalf("state after the first use %+v", s)
	}
	// The next index run with nothing changed keeps that model.
	model := w.vecs.emb.Model()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if w.vecs.emb.Model() != model {
		t.Fatal("an index run with nothing changed retrained")
	}
}

// FusedSearch over a workspace whose embedder is an OpenAI-compatible
// server (a fake) weighs its lists by PretrainedFusion, says so in the
// explanation, and a SearchRequest.Fusion overrides it; a built-in
// workspace keeps BuiltinFusion.
func TestFusedSearchProfileFollowsEmbedder(t *testing.T) {
	repo := vecRepo(t)
	srv, _, _ := fakeOpenAI(t)
	w := openVecWorkspace(t, repo, "openai:fake@"+srv.URL, func(error) {})
	defer w.Close()
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	remember(t, w, "retryCap", "retries are capped")
	check := func(req SearchRequest, want FusionProfile) {
		t.Helper()
		res, err := w.FusedSearch(context.Background(), req)
		if err != nil || len(res) == 0 {
			t.Fatalf("search %q: %v, %d results", req.Query, err, len(res))
		}
		for _, r := range res {
			if r.Explain.Fusion == nil || *r.Explain.Fusion != want {
				t.Fatalf("explanation names %+v, want %+v", r.Explain.Fusion, want)
			}
			for _, p := range r.Explain.Rankers {
				if want := p.Weight / float64(want.RRFK+p.Rank); math.Abs(p.Contribution-want) > 1e-12 {
					t.Errorf("part %+v: contribution, want %g", p, want)
				}
				if p.Ranker == RankerVector && p.Weight != want.VectorWeight {
					t.Errorf("vector part %+v: weight, want %g", p, want.VectorWeight)
				}
			}
		}
	}
	check(SearchRequest{Query: "retries capped", Kind: ResultMemory}, PretrainedFusion)
	custom := FusionProfile{Name: "custom", RRFK: 3, CoverageFull: 1, VectorWeight: 2}
	check(SearchRequest{Query: "retries capped", Kind: ResultMemory, Fusion: &custom}, custom)
	if _, err := w.FusedSearch(context.Background(), SearchRequest{Query: "x", Fusion: &FusionProfile{Name: "bad"}}); err == nil {
		t.Error("a profile with RRF k 0: no error")
	}
}

// A base file damaged on disk is found by the first vector search, which
// sums its rows as it scans them: the search reports it through Warn,
// rebuilds the index from the store and returns the rebuilt index's
// results, the same as before the damage.
func TestVectorSearchDamagedBase(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "builtin", nil)
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	remember(t, w, "retryCap", "retry attempts are capped")
	remember(t, w, "openPool", "the database pool is opened once")
	dir := filepath.Join(w.Dir, "vectors")
	_ = w.Close()
	// A base without a log (written by a rebuild), whose checksum only a
	// scan verifies.
	for _, f := range []string{"vectors.bin", "vectors.log"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	w = openVecWorkspace(t, repo, "builtin", nil)
	want := vecIDs(t, w, "retry attempts capped")
	_ = w.Close()
	if _, err := os.Stat(filepath.Join(dir, "vectors.log")); !os.IsNotExist(err) {
		t.Fatalf("vectors.log after a rebuild: %v", err)
	}
	base := filepath.Join(dir, "vectors.bin")
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-20] ^= 0x40 // in the last row
	if err := os.WriteFile(base, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []error
	w = openVecWorkspace(t, repo, "builtin", func(err error) { warned = append(warned, err) })
	defer w.Close()
	if got := vecIDs(t, w, "retry attempts capped"); got != want || want == "" {
		t.Fatalf("search of a damaged base: %q, want %q", got, want)
	}
	if len(warned) != 1 || !errors.Is(warned[0], index.ErrVectorsCorrupt) {
		t.Fatalf("warnings %v, want one of a checksum mismatch", warned)
	}
	if fixed, err := os.ReadFile(base); err != nil || bytes.Equal(fixed, data) {
		t.Fatalf("base not rewritten by the rebuild (err %v)", err)
	}
}

// markRetrainDue makes w's built-in model due for retraining (1,000
// memory changes since it was trained: more than the retraining threshold
// of a tenth of any test store's memories), and
// marks that retraining deferred when deferred is set.
func markRetrainDue(t *testing.T, w *Workspace, deferred bool) {
	t.Helper()
	s, _ := w.loadBuiltinState()
	s.Changed = 1000
	if deferred {
		s.Deferred = true
	}
	if err := w.saveBuiltinState(s); err != nil {
		t.Fatal(err)
	}
}

// writeLetterEmbeddings answers an OpenAI-compatible /v1/embeddings
// request ({"input": [...]}) with one 26-dimension vector per input: the
// counts of the letters a–z in its lowercased text.
func writeLetterEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct{ Input []string }
	_ = json.NewDecoder(r.Body).Decode(&req)
	type item struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	data := []item{}
	for i, s := range req.Input {
		v := make([]float32, 26)
		for _, c := range strings.ToLower(s) {
			if c >= 'a' && c <= 'z' {
				v[c-'a']++
			}
		}
		data = append(data, item{v, i})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
}
