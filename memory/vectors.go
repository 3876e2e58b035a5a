package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/timing"
)

// NearDuplicateCosine is the cosine similarity (built-in embedder) at or
// above which NearestMemories' hits are near-duplicates of the text: the
// same note reworded or extended. Measured on hand-written pairs
// (TestNearDuplicateThreshold, title and body against the stored
// contextual text): four rewordings of a note scored 0.83–0.96, six pairs
// of different notes on the same or related code 0.24–0.52. Other
// embedders have other scales: pretrained ones use
// PretrainedFusion.NearDuplicateCosine (Workspace.FusionProfile).
const NearDuplicateCosine = 0.75

// vectorState is the workspace's vector index and embedder, guarded by mu.
type vectorState struct {
	mu       sync.Mutex
	spec     string // the embedder selection (Options.Embedder, $GLOSS_EMBEDDER)
	emb      embed.Embedder
	disabled bool // spec "none"
	idx      *index.Vectors
	checked  bool // idx was compared with the store's generation and count
	// bulk is set by RememberBatch for a batch of several chunks: updates
	// append to the index's log and the batch compacts it once at its
	// end (index.Vectors.Append, CompactLog).
	bulk bool
	// reserve is the number of rows a bulk write's first vector update
	// makes room for (index.Vectors.Reserve): the batch's requests.
	reserve int

	building bool      // a background rebuild runs
	failedAt time.Time // when the last background rebuild failed
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	prefetch sync.WaitGroup // PrefetchVectors

	// recording is set while a re-embedding (reembedBeside) builds a new
	// model's index: indexVectors then also records each write in
	// pending, which the re-embedding applies to the new index.
	recording bool
	pending   []pendingWrite
	reembed   reembedState // the running re-embedding's progress (reembed.go)
	// change is the change of the configured embedder awaiting or
	// running its re-embedding (detectChange, ReembedChanged); nil
	// otherwise. Written under mu, read without it (VectorsNote).
	change atomic.Pointer[embedderChange]
	// owner is the last reading of the owner file (loadVectorsOwner),
	// reused while the file's stat is unchanged; nil: none yet, or
	// dropped by a write of the file or a swap of the directory.
	owner atomic.Pointer[ownerReading]
	// ahead is the training of the built-in model a RememberBatch started
	// before its first use (trainAhead), until the embedder takes it
	// (takeTraining) or the batch ends; nil otherwise.
	ahead *builtinTraining
	// trainings counts the trainings of the built-in model this
	// workspace started (trainBuiltinModel), so that tests can tell a
	// batch trained once.
	trainings atomic.Int64
	// corpusRead, when set (by tests), is called by each training of the
	// built-in model once it has read the store's memories for its
	// corpus (trainingUnits), on the training's goroutine.
	corpusRead func()
}

// vectorText is the contextual text a memory is embedded from: its type
// and title, the names of its anchored symbols (as written and split into
// words) and its anchor paths, its tags, then its body.
func vectorText(m *Memory) string {
	var b strings.Builder
	b.WriteString(m.Type + ": " + m.Title + "\n")
	for _, a := range m.Anchors {
		if a.Symbol != "" {
			b.WriteString(symbolTextsOf(a.Symbol).vector)
		}
		b.WriteString("in " + a.Path + "\n")
	}
	if len(m.Tags) > 0 {
		b.WriteString("tags: " + strings.Join(m.Tags, ", ") + "\n")
	}
	b.WriteString(m.Body)
	return b.String()
}

// vectorDocsAt returns the vector documents of every stored memory and
// the store's memory generation read before the listing, so that a write
// landing during the listing leaves the generation behind, not ahead, of
// the documents (a rebuild at gen is then redone or caught up).
func (w *Workspace) vectorDocsAt() ([]index.Doc, uint64, error) {
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, 0, err
	}
	var docs []index.Doc
	err = w.eachDocMemories(docMemoryChunk, func(mems []*Memory) error {
		docs = append(docs, vectorDocs(mems)...)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return docs, gen, nil
}

// vectorDocs returns the vector documents of mems (vectorText), made on
// up to GOMAXPROCS goroutines as searchDocs are.
func vectorDocs(mems []*Memory) []index.Doc {
	return docsOf(mems, func(m *Memory) index.Doc {
		return index.Doc{ID: m.ID, Text: vectorText(m)}
	})
}

// openVectors opens the vector index (once) and brings it in step with
// the store: when its generation differs from the store's (or, for a
// store at generation 0, its count), it is rebuilt — at once for local embedders
// (built-in, model2vec), in the background with progress logged through
// Options.Warn for remote ones (Ollama, OpenAI-compatible), while
// searches see the rows embedded so far. It returns nil, nil when
// vectors are disabled (embedder "none"). The caller holds vecs.mu.
func (w *Workspace) openVectors(ctx context.Context) (*index.Vectors, error) {
	if w.vecs.disabled {
		return nil, nil
	}
	if w.vecs.change.Load() != nil || (w.vecs.idx == nil && w.detectChange()) {
		// The embedder changed: the old vectors (nil: none) serve until
		// the re-embedding swaps the new ones in (ReembedChanged).
		return w.vecs.idx, nil
	}
	if w.vecs.idx == nil {
		files := w.readVectorFilesAhead()
		t0 := time.Now()
		e, err := w.embedder(ctx)
		timing.Since("embedder loaded", t0)
		f := <-files
		if err != nil || e == nil {
			f.Release()
			return nil, err
		}
		if f == nil {
			f = index.ReadVectorFiles(filepath.Join(w.Dir, "vectors"))
		}
		v, _, err := f.Open(e)
		if err != nil {
			return nil, err
		}
		if spec, err := w.embedSpec(); err == nil {
			w.noteVectorsOwner(spec, e)
		}
		w.vecs.idx, w.vecs.checked = v, false
	}
	v := w.vecs.idx
	if w.vecs.building {
		return v, nil
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, err
	}
	g, known := v.Generation()
	ok := known && g == gen
	if ok && !w.vecs.checked && gen == 0 { // a store from before generations were counted
		n, _ := v.Count()
		stored, err := w.Store.MemoryCount()
		ok = err == nil && n == uint64(stored)
	}
	w.vecs.checked = true
	if ok {
		return v, nil
	}
	if isRemote(v.Embedder()) {
		if time.Since(w.vecs.failedAt) >= retryRebuildAfter {
			w.rebuildVectorsInBackground(v)
		}
		return v, nil
	}
	return v, w.rebuildVectors(ctx, v)
}

// readVectorFilesAhead reads the files of the vector index on another
// goroutine while the caller loads the embedder (when it is not loaded
// yet and not "none"): at 100,000 memories both take tens of
// milliseconds, which a CLI search otherwise paid one after the other.
// The caller holds vecs.mu and receives the files once.
func (w *Workspace) readVectorFilesAhead() <-chan *index.VectorFiles {
	dir := filepath.Join(w.Dir, "vectors")
	files := make(chan *index.VectorFiles, 1)
	switch spec, err := w.embedSpec(); {
	case err != nil || spec.Kind == embed.KindNone:
		files <- nil // no vectors: embedder returns nil or the error
		return files
	case w.vecs.emb != nil:
		files <- index.ReadVectorFiles(dir)
		return files
	}
	go func() {
		t0 := time.Now()
		f := index.ReadVectorFiles(dir)
		timing.Since("vector files read", t0)
		files <- f
	}()
	return files
}

// retryRebuildAfter is the pause after a failed background rebuild
// before the next search or write tries again.
const retryRebuildAfter = time.Minute

// isRemote reports whether e calls a server.
func isRemote(e embed.Embedder) bool {
	switch e.(type) {
	case *embed.Ollama, *embed.OpenAI:
		return true
	}
	return false
}

// rebuildVectors rebuilds v from the store until it reflects the store's
// generation (memory writes during a rebuild make another, cheap pass:
// unchanged texts are not embedded again), at most 3 passes.
func (w *Workspace) rebuildVectors(ctx context.Context, v *index.Vectors) error {
	for pass := 0; pass < 3; pass++ {
		docs, gen, err := w.vectorDocsAt()
		if err != nil {
			return err
		}
		if err := v.RebuildContext(ctx, docs, gen); err != nil {
			return fmt.Errorf("rebuild vector index: %w", err)
		}
		if now, err := w.Store.MemoryGeneration(); err != nil || now == gen {
			return err
		}
	}
	return nil
}

// rebuildVectorsInBackground starts rebuildVectors in a goroutine that
// Close cancels. The caller holds vecs.mu.
func (w *Workspace) rebuildVectorsInBackground(v *index.Vectors) {
	ctx, cancel := context.WithCancel(context.Background())
	w.vecs.building, w.vecs.cancel = true, cancel
	model := v.Embedder().Model()
	v.Progress = func(done, total int) {
		if done == total || done%1024 < 64 {
			w.warn(fmt.Errorf("vector index: embedded %d of %d memories with %s", done, total, model))
		}
	}
	w.vecs.wg.Add(1)
	go func() {
		defer w.vecs.wg.Done()
		err := w.rebuildVectors(ctx, v)
		if err != nil {
			w.warn(fmt.Errorf("vector index (%s): %w; vector search is incomplete until the next attempt", model, err))
		}
		w.vecs.mu.Lock()
		w.vecs.building = false
		w.vecs.checked = err == nil
		if err != nil {
			w.vecs.failedAt = time.Now()
		}
		w.vecs.mu.Unlock()
	}()
}

// WarmEmbedder opens the vector index (vectorIndex, as the first
// vector search would) and builds the lookup tables its embedder would
// otherwise build during the first searches: the built-in model's n-gram
// bucket rows (embed.Builtin.WarmSubwords; at 100,000 memories on
// prometheus the daemon's first 8 searches with a word outside the
// vocabulary cost 10–15 ms of CPU more each, and the 9th about 50 ms,
// docs/benchmarks.md, branch dl11). It does nothing unless the
// built-in embedder is selected and its model file exists (it never
// trains one: that stays with the first vector search); other embedders
// have nothing to warm. It returns vectorIndex's error.
func (w *Workspace) WarmEmbedder(ctx context.Context) error {
	if spec, err := w.embedSpec(); err != nil || spec.Kind != embed.KindBuiltin {
		return nil
	}
	if _, err := os.Stat(w.builtinPath(builtinModelFile)); err != nil {
		return nil
	}
	if _, err := w.vectorIndex(ctx); err != nil {
		return err
	}
	w.vecs.mu.Lock()
	e := w.vecs.emb
	w.vecs.mu.Unlock()
	if b, ok := e.(*embed.Builtin); ok {
		b.WarmSubwords()
	}
	return nil
}

// WarmVectorRows verifies the open vector index's float32 rows in one
// pass (index.Vectors.WarmRows), so that the daemon's searches neither
// fault them in nor check their CRC-32 candidate by candidate. It does
// nothing when the index is not open (WarmEmbedder opens it for the
// built-in embedder). A damaged base file is rebuilt from the store, as
// a search that found it would (VectorSearch); other errors are
// returned.
func (w *Workspace) WarmVectorRows(ctx context.Context) error {
	w.vecs.mu.Lock()
	v := w.vecs.idx
	w.vecs.mu.Unlock()
	if v == nil {
		return nil
	}
	err := v.WarmRows()
	if errors.Is(err, index.ErrVectorsCorrupt) {
		w.warn(fmt.Errorf("%w; rebuilding it from the store", err))
		_, err = w.vectorIndex(ctx)
	}
	return err
}

// vectorIndex opens the vector index under vecs.mu.
func (w *Workspace) vectorIndex(ctx context.Context) (v *index.Vectors, err error) {
	w.vecs.mu.Lock()
	defer w.vecs.mu.Unlock()
	defer index.Recover(w.Dir, "open vector index", &err)
	return w.openVectors(ctx)
}

// indexVectors applies memory changes (the store is at generation gen)
// to the vector index. Failures never fail the write: the index is marked
// for rebuild and the problem reported through Options.Warn.
func (w *Workspace) indexVectors(mems []*Memory, deleted []string, gen uint64) {
	w.indexVectorDocs(vectorDocs(mems), deleted, gen)
}

// indexVectorDocs is indexVectors of the vector documents of the changed
// memories (vectorDocs), so that a caller that queues the update holds
// the documents, not the memories (commitChunk).
func (w *Workspace) indexVectorDocs(docs []index.Doc, deleted []string, gen uint64) {
	w.vecs.mu.Lock()
	defer w.vecs.mu.Unlock()
	w.recordPending(docs, deleted, gen)
	v, err := w.vecs.idx, error(nil)
	if g, known := vecGeneration(v); v == nil || w.vecs.building || !known || g+1 != gen {
		// Not exactly this write behind (openVectors would otherwise take
		// the store's new generation for a change it missed and rebuild
		// from every memory at each write).
		v, err = w.openVectors(context.Background())
	}
	if err != nil || v == nil {
		if err != nil {
			w.warn(fmt.Errorf("vector index: %w", err))
		}
		return
	}
	if g, known := v.Generation(); known && g == gen {
		return // a rebuild already saw these changes
	}
	update := v.Update
	if w.vecs.bulk {
		update = v.Append
		v.Reserve(w.vecs.reserve)
		w.vecs.reserve = 0
	}
	if err := update(docs, deleted, gen); err != nil {
		v.Invalidate()
		w.warn(fmt.Errorf("vector index: %w (it will be rebuilt)", err))
	}
}

// bulkVectors makes the vector updates of the chunks of one
// RememberBatch append to the index's log (see vectorState.bulk); the
// function it returns ends that and compacts a long log once. A failed
// compaction leaves the log, which the next opening replays, and is
// reported through Options.Warn. The first update makes room for n rows
// (the batch's requests, index.Vectors.Reserve).
func (w *Workspace) bulkVectors(n int) func() {
	w.vecs.mu.Lock()
	w.vecs.bulk, w.vecs.reserve = true, n
	w.vecs.mu.Unlock()
	return func() {
		w.vecs.mu.Lock()
		defer w.vecs.mu.Unlock()
		w.vecs.bulk, w.vecs.reserve = false, 0
		w.compactVectorLog()
	}
}

// compactVectorLog compacts the open vector index's log when it is long
// (index.Vectors.CompactLog); a failure leaves the log, which the next
// opening replays, and is reported through Options.Warn. vecs.mu is
// held.
func (w *Workspace) compactVectorLog() {
	if v := w.vecs.idx; v != nil {
		if err := v.CompactLog(); err != nil {
			w.warn(fmt.Errorf("vector index: %w", err))
		}
	}
}

// bulkWindow is how many rows a bulk write (bulkVectors) adds to the
// vector index's heap rows and log before the log is compacted: the base
// written, its rows then mapped from the file, off the Go heap
// (index.Vectors.CompactLog). A stream of 80,000 memories that kept
// them all on the heap held 80 MB more live, and the collector ran three
// times as often under `remember --batch`'s heap limit
// (docs/benchmarks.md, session 18).
const bulkWindow = 10 * RememberChunk

// bulkRows counts the rows of a bulk write since its vector log was last
// compacted (rows), and how many of the batch's size requests were
// stored (seen); size ≤ 0: unknown.
type bulkRows struct {
	size, seen, rows int
}

func newBulkRows(size int) *bulkRows { return &bulkRows{size: size} }

// reserve returns the rows to make room for until the next compaction:
// bulkWindow, or fewer when the requests left of a batch of known size
// are fewer.
func (b *bulkRows) reserve() int {
	if b.size <= 0 {
		return bulkWindow
	}
	return min(bulkWindow, max(b.size-b.seen, 0))
}

// add counts n more rows; compact reports that they complete a window,
// after which the log is to be compacted, with room made for reserve
// rows. A nil b (no bulk write) never compacts.
func (b *bulkRows) add(n int) (compact bool, reserve int) {
	if b == nil {
		return false, 0
	}
	b.seen += n
	b.rows += n
	if b.rows < bulkWindow {
		return false, 0
	}
	b.rows = 0
	return true, b.reserve()
}

// compactBulkVectors compacts the vector log of a bulk write at the end
// of a window of bulkWindow rows (CompactLog), and makes the next update
// reserve room for n rows. It runs with a chunk's derived-index update,
// beside the batch's next chunk. A failed compaction leaves the log,
// which the next opening replays, and is reported through Options.Warn.
func (w *Workspace) compactBulkVectors(n int) {
	w.vecs.mu.Lock()
	defer w.vecs.mu.Unlock()
	w.compactVectorLog()
	if w.vecs.bulk {
		w.vecs.reserve = n
	}
}

// vecGeneration is v.Generation, or (0, false) for a nil v.
func vecGeneration(v *index.Vectors) (uint64, bool) {
	if v == nil {
		return 0, false
	}
	return v.Generation()
}

// openVectorsLogged opens the vector index at daemon start; a failure is
// reported through Options.Warn, since full-text search works without it.
func (w *Workspace) openVectorsLogged() {
	if _, err := w.vectorIndex(context.Background()); err != nil {
		w.warn(fmt.Errorf("vector index: %w", err))
	}
}

// PrefetchVectors opens the vector index and loads its embedder in the
// background, so that a process that opens the workspace for one search
// or context (the CLI without a daemon) does that on its second core
// while the full text is searched: at 100,000 memories the embedder and
// the 50 MiB index take about a third of such a call. The search waits
// for it under the index's lock; an error is met again, and reported,
// by the search. Close waits for it.
func (w *Workspace) PrefetchVectors() {
	w.vecs.prefetch.Add(1)
	go func() {
		defer w.vecs.prefetch.Done()
		_, _ = w.vectorIndex(context.Background())
	}()
}

// closeVectors stops a background rebuild and waits for it.
func (w *Workspace) closeVectors() error {
	w.vecs.prefetch.Wait()
	w.vecs.mu.Lock()
	if w.vecs.cancel != nil {
		w.vecs.cancel()
	}
	w.vecs.mu.Unlock()
	w.vecs.wg.Wait()
	w.vecs.mu.Lock()
	defer w.vecs.mu.Unlock()
	if w.vecs.idx != nil {
		return w.vecs.idx.Close()
	}
	return nil
}

// VectorSearch returns the memories nearest to query in the vector index
// (cosine similarity of the query's embedding and the memories'
// contextual texts, see vectorText; best first, ties by id; hits of
// similarity ≤ 0 left out), at most limit (0: 20). With vectors disabled
// (embedder "none") it returns nil, nil; while a remote embedder
// re-embeds in the background it searches the rows embedded so far. It
// fails on an empty query, when the embedder cannot be loaded, or when
// embedding the query fails.
func (w *Workspace) VectorSearch(ctx context.Context, query string, limit int) ([]index.Scored, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fmt.Errorf("empty search query")
	}
	v, err := w.vectorIndex(ctx)
	if err != nil || v == nil {
		return nil, err
	}
	timing.Mark("vector index ready")
	defer timing.Mark("vector search")
	q := index.Query{Texts: []index.Text{{Text: query, Weight: 1}}, Limit: clampSearchLimit(limit)}
	out, err := v.Search(ctx, q)
	if errors.Is(err, index.ErrVectorsCorrupt) {
		// The first scan found the base file damaged and emptied the
		// index: rebuild it from the store (vectorIndex, as for a
		// damaged index found at opening) and search that.
		w.warn(fmt.Errorf("%w; rebuilding it from the store", err))
		if v, err = w.vectorIndex(ctx); err != nil || v == nil {
			return nil, err
		}
		out, err = v.Search(ctx, q)
	}
	return out, err
}

// NearestMemories returns the k memories most similar to text (a
// memory's title and body about to be stored), by cosine similarity,
// best first, ties by id. Hits at or above NearDuplicateCosine are
// near-duplicates. Errors are VectorSearch's.
func (w *Workspace) NearestMemories(ctx context.Context, text string, k int) ([]index.Scored, error) {
	return w.VectorSearch(ctx, text, k)
}
