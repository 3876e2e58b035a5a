package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/syncx"
	"github.com/gloss-dev/gloss/memory/confidence"
)

// Memories are stored as JSON records through index.Store's memory
// keyspace (index.MemoryBatch), with an anchor path index for reverse
// lookup.

// ErrNotFound is returned (wrapped) for an unknown memory id.
var ErrNotFound = errors.New("memory not found")

// Get returns the memory with id, or an error wrapping ErrNotFound. A
// unique id prefix (at least 6 characters) is accepted too.
func (w *Workspace) Get(id string) (*Memory, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, fmt.Errorf("empty memory id")
	}
	m, err := w.get(id)
	if err == nil || !errors.Is(err, ErrNotFound) || len(id) < 6 {
		return m, err
	}
	var found []*Memory
	err = w.Store.Memories(func(mid string, val []byte) error {
		if strings.HasPrefix(mid, strings.ToUpper(id)) {
			var mm Memory
			if err := json.Unmarshal(val, &mm); err != nil {
				return err
			}
			w.lifecycle(&mm)
			found = append(found, &mm)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("memory id prefix %s is ambiguous (%d memories)", id, len(found))
}

// get returns memory id as stored, brought up to date with the clock
// (lifecycle).
func (w *Workspace) get(id string) (*Memory, error) {
	m, err := w.getRecord(id)
	if err == nil {
		w.lifecycle(m)
	}
	return m, err
}

// getRecord returns memory id as stored (a private copy), without
// lifecycle: for callers that re-resolve its anchors first.
func (w *Workspace) getRecord(id string) (*Memory, error) {
	val, err := w.Store.Memory(id)
	if errors.Is(err, index.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	if m, ok := w.decoded.Get(id, val); ok {
		return m, nil
	}
	m, err := decodeMemory(id, val)
	if err != nil {
		return nil, err
	}
	w.decoded.Put(id, val, m.private())
	return m, nil
}

// List returns every memory in id (creation) order. A store that cannot
// be read gives an error naming it.
func (w *Workspace) List() ([]*Memory, error) {
	var out []*Memory
	err := w.Store.Memories(func(id string, val []byte) error {
		m, err := decodeMemory(id, val)
		if err != nil {
			return err
		}
		w.lifecycle(m)
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list memories in %s: %w", w.Store.Dir(), err)
	}
	return out, nil
}

// anchorPaths returns the paths of m's anchors (nil for a nil m).
func anchorPaths(m *Memory) []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m.Anchors))
	for i, a := range m.Anchors {
		out[i] = a.Path
	}
	return out
}

// putMemory adds m to b, replacing old (the stored version; may be nil),
// with its StaleSince brought in step with its anchors (markStale) and its
// confidence as of now.
func (w *Workspace) putMemory(b *index.MemoryBatch, old, m *Memory) error {
	enc := memoryEncoders.Get().(*memoryEncoder)
	defer memoryEncoders.Put(enc)
	enc.buf = enc.buf[:0]
	rec := w.encodeRecord(enc, m)
	return putRecord(b, old, m, rec, enc.buf)
}

// memoryRecord is what putMemory stores of a memory besides its index
// entries, encoded: its JSON record (bytes [start, end) of its encoder's
// buffer, which it is appended to) and its summary (encodeSummary), or
// the error of encoding them.
type memoryRecord struct {
	start, end int
	summary    []byte
	err        error
}

// encodeRecord brings m in step for storing as putMemory does (schema
// version, StaleSince, confidence as of now) and appends its record to
// enc's buffer (appendRecord).
func (w *Workspace) encodeRecord(enc *memoryEncoder, m *Memory) memoryRecord {
	m.V = SchemaVersion
	markStale(m, w.now())
	m.Confidence = confidence.Of(m.Lifecycle(), w.now()).Value
	rec := memoryRecord{start: len(enc.buf)}
	var err error
	if enc.buf, err = appendRecord(enc.buf, m); err != nil {
		enc.buf = enc.buf[:rec.start]
		rec.err = fmt.Errorf("encode memory %s: %w", m.ID, err)
		return rec
	}
	rec.end = len(enc.buf)
	rec.summary, rec.err = encodeSummary(ViewOf(m))
	return rec
}

// putRecord adds m, encoded as rec into buf (its encoder's bytes), to b,
// replacing old (may be nil): the record and its path entries, its
// relations and its summary.
func putRecord(b *index.MemoryBatch, old, m *Memory, rec memoryRecord, buf []byte) error {
	if rec.err != nil {
		return rec.err
	}
	if err := b.Put(m.ID, buf[rec.start:rec.end], anchorPaths(m), anchorPaths(old)); err != nil {
		return err
	}
	if err := putRelations(b, old, m); err != nil {
		return err
	}
	return b.PutSummary(m.ID, rec.summary)
}

// putMemories is putMemory for each memory of ms (none of them stored
// before), its records encoded on up to GOMAXPROCS goroutines first, each
// range of ms into one pooled encoder (encoding was 1.8 CPU-s of a
// +80,000 batch's main goroutine, pprof, docs/benchmarks.md); then they
// are added to b in order. errs[i] is ms[i]'s error.
func (w *Workspace) putMemories(b *index.MemoryBatch, ms []*Memory) (errs []error) {
	recs := make([]memoryRecord, len(ms))
	encs := make([]*memoryEncoder, len(ms)) // the encoder of each record
	_ = syncx.Ranges(len(ms), 64, func(lo, hi int) error {
		enc := memoryEncoders.Get().(*memoryEncoder)
		enc.buf = slices.Grow(enc.buf[:0], (hi-lo)*recordBytesHint)
		for i := lo; i < hi; i++ {
			recs[i], encs[i] = w.encodeRecord(enc, ms[i]), enc
		}
		return nil
	})
	errs = make([]error, len(ms))
	for i, m := range ms {
		errs[i] = putRecord(b, nil, m, recs[i], encs[i].buf)
	}
	for i, enc := range encs {
		if i == 0 || enc != encs[i-1] {
			memoryEncoders.Put(enc)
		}
	}
	return errs
}

// recordBytesHint is the room putMemories makes in an encoder's buffer
// per record before encoding (bytes): a memory record of a batch on
// prometheus is 2.3 KB on average, and a buffer grown by doubling from
// empty (the pool is emptied by the collector between chunks) allocated
// twice the records' bytes (200 MB for 80,000 memories).
const recordBytesHint = 2560

// memoryEncoder is a reused buffer memories are encoded into as
// json.Marshal encodes them (appendRecord; putMemory, putMemories: the
// store's batch copies the bytes), so that a batch of 80,000 memories
// does not allocate their 186 MB of JSON one record at a time (heap
// profile, docs/benchmarks.md).
type memoryEncoder struct {
	buf []byte
}

var memoryEncoders = sync.Pool{New: func() any { return &memoryEncoder{} }}

// deleteMemory removes m (and its entries in the relation index) from b.
func deleteMemory(b *index.MemoryBatch, m *Memory) error {
	if err := dropRelations(b, m); err != nil {
		return err
	}
	return b.Delete(m.ID, anchorPaths(m))
}

// commit writes b durably (index.MemoryBatch.Commit), then applies the
// changed and deleted memories to the derived indexes. Those are opened,
// and checked against the store's memory generation, before the write:
// opened after it (the first write of a process), they took the write's
// own generation for a change they had missed and were rebuilt from every
// memory (21 CPU-s for the full-text index at 100,000 memories, at each
// `gloss check` that re-resolved something).
func (w *Workspace) commit(b *index.MemoryBatch, changed []*Memory, deleted []string) error {
	return w.commitDocs(b, changed, changed, deleted)
}

// commitDocs is commit where the memories whose documents changed (docs:
// searchDoc, vectorText) are a part of those changed: the anchor place
// table takes changed and deleted, the derived indexes docs and deleted,
// and still record the write's generation. A check's re-resolutions
// mostly move anchors without changing their documents (docsChanged):
// updating the full-text and vector indexes for all of them was most of
// a check of 51,000 moved memories (text merges and vector base
// rewrites, docs/benchmarks.md, session 20).
func (w *Workspace) commitDocs(b *index.MemoryBatch, changed, docs []*Memory, deleted []string) error {
	w.openDerived()
	gen, err := w.writeBatch(b)
	if err != nil {
		return err
	}
	w.places.update(changed, deleted, gen)
	w.indexDerived(docs, deleted, gen)
	return nil
}

// writeBatch writes b durably (commitBatch), with every summary marked
// current when it is the first write of an empty store
// (markNewStoreSummaries), and returns the store's new memory
// generation. b is closed on an error before the write.
func (w *Workspace) writeBatch(b *index.MemoryBatch) (uint64, error) {
	if err := markNewStoreSummaries(w.Store, b); err != nil {
		b.Close()
		return 0, err
	}
	return w.commitBatch(b)
}

// openDerived opens the full-text and vector indexes if this process has
// not yet (openSearch, vectorIndex: each rebuilt when it does not reflect
// the store). Failures are left to the update after the write.
func (w *Workspace) openDerived() {
	w.openSearchIndex()
	w.openVectorsLogged()
}

// openSearchIndex opens the full-text index (openSearch) under searchMu;
// an error is met again by the next search or write.
func (w *Workspace) openSearchIndex() {
	w.searchMu.Lock()
	_, _ = w.openSearch()
	w.searchMu.Unlock()
}

// idsAtPath returns the ids of memories with an anchor in path.
func (w *Workspace) idsAtPath(path string) ([]string, error) {
	return w.Store.MemoryIDsAt(path)
}

// markNewStoreSummaries marks every summary current, in the summary
// format, when b is the first memory batch of an empty store (no memory
// generation, no memory record): putMemory writes each memory's summary
// with it, so none is missing. Without it a new store's summaries were
// taken for an older gloss's (index.Store.SummariesCurrent) and the first
// check after `remember --batch` re-encoded every memory (1.1 CPU-s at
// 20,000 memories). It returns store read errors.
func markNewStoreSummaries(s *index.Store, b *index.MemoryBatch) error {
	gen, err := s.MemoryGeneration()
	if err != nil || gen != 0 {
		return err
	}
	has, err := s.HasMemories()
	if err != nil || has {
		return err
	}
	b.MarkSummariesCurrent()
	return b.SetSummaryFormat(summaryFormat)
}
