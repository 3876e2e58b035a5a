package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gloss-dev/gloss/index/bm25"
)

// BM25Text is a full-text derived index on gloss's own BM25 index
// (package bm25) instead of Bluge: the memory text index (issue #12:
// Bluge's segment building, merging and analysis were a third of the CPU
// of `remember --batch`). Its directory holds
//
//   - base.bm25: a bm25.Index in its saved form (bm25.Index.WriteSaved),
//     tagged with the document layout (schema), the store generation it
//     reflects and its number of live documents;
//   - log: the writes since the base, appended in order, each a record of
//     the analyzed documents put (bm25.Field: field length and term
//     frequencies, as BM25Fields makes them) and the ids deleted, with the
//     generation the write brought the store to. A record is framed by its
//     payload length (uint32, little-endian) and the payload's CRC-32
//     (IEEE), so a torn or damaged record is seen;
//   - gloss-schema: the schema, written last by Rebuild.
//
// A write appends one record and, when the index is loaded in memory,
// applies it there; it does not load the index. A search of an index not
// loaded reads the base's query terms only (bm25.Saved.Search), with the
// log's writes laid over it (bm25.Overlay) when there are any, as a CLI
// search needs. The index is loaded (the base read whole,
// bm25.Saved.Load, and the log replayed) by Load (the daemon's
// WarmText), and when the log would have compacted the loaded index
// (bm25.Overlay.Compacts). The log is folded into a new base (compact,
// the log then removed): by saving the loaded index when it holds more
// than half the base's documents (and compactMin); in an index not
// loaded, by a merge of the overlay into the base (Overlay.WriteSaved)
// every mergeMax documents, run on its own goroutine beside the writes
// that follow (bgMerge); and at Close when the index is loaded or its
// log holds closeCompactMin documents or more.
//
// Files: base.bm25, log and gloss-schema as above; merge.bm25 while a
// merge writes it (removed at open after a crash).
//
// Rankings are those of the bm25.Index the writes built (BM25 with
// Bluge v0.2.2's arithmetic; statistics counting deleted documents until
// the index compacts, as Bluge's count them until a segment merge), ties
// by id; a base saved and loaded ranks as the index it was saved from.
// Methods are safe for concurrent use.
type BM25Text struct {
	dir, schema string

	mu      sync.Mutex
	ok      bool   // the directory was read whole and is in step with itself
	gen     uint64 // generation of the last write (the base's when the log is empty)
	baseGen uint64
	baseN   int           // live documents of the base
	logN    int           // documents put or deleted by the log's records
	x       *bm25.Index   // base with the log applied; nil until loaded
	keep    bool          // Load was called: x stays in memory
	saved   *bm25.Saved   // the base, open for searches while not loaded
	over    *bm25.Overlay // the log laid over saved, for searches while not loaded
	logFile *os.File      // the log, open for appending after the first write
	merging *bgMerge      // a merge running on its own goroutine, or nil
	logBuf  []byte        // the last record appended, reused for the next (Update)
	// mergeFailures counts the merges that failed (for tests).
	mergeFailures int
}

// bgMerge is a merge of the log into the base (Overlay.WriteSaved) that
// runs on its own goroutine while the writes that follow go on
// (startMerge): a batch's next chunk is anchored meanwhile instead of
// waiting for it. The merge reads only its overlay and the base's file
// (saved, which nothing else uses until finishMerge); the writes since
// are appended to the log as ever and kept here, to become the new log
// and the new base's overlay once it is in place.
type bgMerge struct {
	done chan struct{}
	over *bm25.Overlay // the writes merged, no longer written to
	gen  uint64        // the generation of the new base
	n    int           // its live documents
	path string        // where it is written
	err  error         // the merge's, set before done is closed
	// recs are the log records (framed) of the writes since, decoded
	// again when the merge ends (applyRecs) rather than also kept
	// analyzed: the analyzed fields' term strings are small objects the
	// collector of a batch scanned at every cycle of every merge
	// (BM25Fields held 9 MB live in a heap profile taken mid-batch,
	// docs/benchmarks.md).
	recs [][]byte
	logN int // documents put or deleted by them
}

// applyRecs applies the writes of framed log records recs to o. The
// records are the ones this process appended (appendLog), so they decode;
// an error is returned all the same.
func applyRecs(o *bm25.Overlay, recs [][]byte) error {
	for _, rec := range recs {
		_, docs, deleted, err := decodeLogRecord(rec[8:], true)
		if err != nil {
			return err
		}
		o.Apply(docs, deleted)
	}
	return nil
}

var _ Derived = (*BM25Text)(nil)

// Files of a BM25Text directory.
const (
	bm25BaseFile = "base.bm25"
	bm25LogFile  = "log"
	// bm25MergeFile is the base a background merge writes (bgMerge),
	// renamed to bm25BaseFile when done.
	bm25MergeFile = "merge.bm25"
	bm25TagHead   = "gloss bm25 text 1\n"
)

// compactMin is the least number of documents the log of a loaded
// BM25Text holds before a write compacts it into the base; closeCompactMin
// the least for Close to, when the index is not loaded (loading reads the
// whole base: about 2 s of CPU at 100,000 memories, where a search laid
// over the base, bm25.Overlay, replays a short log in milliseconds).
// mergeMax is the most documents the log of an index not loaded holds
// before a write compacts it by merging it into the base (Overlay.
// WriteSaved), which bounds the memory of a long batch to the base's id
// map and that many documents' postings (issue #12: a +80,000 batch
// loading the whole index at its end peaked at 520 MiB; with 8,192 the
// peak was 345 MiB, with 4,096 279 MiB for the same CPU:
// docs/benchmarks.md).
// eagerOverlay is the least number of documents a write puts or deletes
// for it to make the overlay of an index not loaded (a write of a batch's
// chunk), which later writes then update: a short-lived process's single
// write leaves the overlay to a search, which reads the base's ids for it.
const (
	compactMin      = 4096
	closeCompactMin = 1024
	mergeMax        = 4096
	eagerOverlay    = 256
)

// OpenBM25Text opens the BM25 text index in dir written with document
// layout schema, reading the base's directory and checking the log's
// records (not loading the index). ok is false when dir is missing, of
// another schema, or its base or log is unreadable or damaged: the index
// is then new and empty, and the caller must Rebuild it. err is the
// error of resetting dir.
func OpenBM25Text(dir, schema string) (t *BM25Text, ok bool, err error) {
	t = &BM25Text{dir: dir, schema: schema}
	old, _ := os.ReadFile(filepath.Join(dir, schemaFile))
	if strings.TrimSpace(string(old)) == schema && t.readDir() == nil {
		t.ok = true
		return t, true, nil
	}
	t.closeFiles()
	if err := os.RemoveAll(dir); err != nil {
		return nil, false, fmt.Errorf("reset full-text index: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("create full-text index: %w", err)
	}
	return t, false, nil
}

// readDir opens the base and checks the log: the generations, the base's
// documents, the log's document count.
func (t *BM25Text) readDir() error {
	s, err := bm25.OpenSaved(filepath.Join(t.dir, bm25BaseFile))
	if err != nil {
		return err
	}
	gen, n, err := parseBM25Tag(s.Tag(), t.schema)
	if err != nil {
		_ = s.Close()
		return err
	}
	t.saved, t.baseGen, t.baseN, t.gen = s, gen, n, gen
	_ = os.Remove(filepath.Join(t.dir, bm25MergeFile)) // of a merge a crash cut short
	return t.eachLogRecord(func(gen uint64, docs map[string][]bm25.Field, deleted []string) {
		t.gen = gen
		t.logN += len(docs) + len(deleted)
	}, false)
}

// bm25Tag is the base's tag for generation gen and n live documents.
func bm25Tag(schema string, gen uint64, n int) []byte {
	return fmt.Appendf(nil, "%sschema %s\ngeneration %d\ndocuments %d\n", bm25TagHead, schema, gen, n)
}

// parseBM25Tag returns the generation and live documents of a base's tag,
// or an error when it is not a tag of schema.
func parseBM25Tag(tag []byte, schema string) (gen uint64, n int, err error) {
	var s string
	if _, err := fmt.Sscanf(strings.TrimPrefix(string(tag), bm25TagHead), "schema %s\ngeneration %d\ndocuments %d\n", &s, &gen, &n); err != nil || s != schema || !bytes.HasPrefix(tag, []byte(bm25TagHead)) {
		return 0, 0, fmt.Errorf("%w: tag %q", bm25.ErrSavedCorrupt, tag)
	}
	return gen, n, nil
}

// errLogCorrupt is returned by eachLogRecord for a damaged log; it
// wraps bm25.ErrSavedCorrupt, so that one test tells a BM25Text to
// rebuild, whichever of its files is damaged.
var errLogCorrupt = fmt.Errorf("full-text index log: %w", bm25.ErrSavedCorrupt)

// eachLogRecord calls fn with each record of the log after the base
// (records of a generation at or below the base's were compacted into
// it: a crash between writing the base and removing the log leaves
// them), in order; with decode false, docs holds the record's ids with
// nil fields. A missing log has no record. It returns errLogCorrupt
// (wrapped) for a torn or damaged record, or the error of reading.
func (t *BM25Text) eachLogRecord(fn func(gen uint64, docs map[string][]bm25.Field, deleted []string), decode bool) error {
	data, err := os.ReadFile(filepath.Join(t.dir, bm25LogFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for off := 0; off < len(data); {
		if len(data)-off < 8 {
			return fmt.Errorf("%w: torn record at %d", errLogCorrupt, off)
		}
		n := int(binary.LittleEndian.Uint32(data[off:]))
		sum := binary.LittleEndian.Uint32(data[off+4:])
		if n > len(data)-off-8 || crc32.ChecksumIEEE(data[off+8:off+8+n]) != sum {
			return fmt.Errorf("%w: record at %d", errLogCorrupt, off)
		}
		gen, docs, deleted, err := decodeLogRecord(data[off+8:off+8+n], decode)
		if err != nil {
			return fmt.Errorf("%w: record at %d", err, off)
		}
		if gen > t.baseGen {
			fn(gen, docs, deleted)
		}
		off += 8 + n
	}
	return nil
}

// appendLogRecord appends the payload of a log record: generation gen,
// the documents docs (id, then per field its name, length and terms with
// their frequencies) and the ids deleted, as uvarints and
// length-prefixed strings.
func appendLogRecord(b []byte, gen uint64, docs []Doc, fields [][]bm25.Field, deleted []string) []byte {
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, gen)
	b = binary.AppendUvarint(b, uint64(len(docs)))
	for i, d := range docs {
		str(d.ID)
		b = binary.AppendUvarint(b, uint64(len(fields[i])))
		for _, f := range fields[i] {
			str(f.Name)
			b = binary.AppendUvarint(b, uint64(f.Length))
			b = binary.AppendUvarint(b, uint64(len(f.Terms)))
			for _, t := range f.Terms {
				str(t.Term)
				b = binary.AppendUvarint(b, uint64(max(t.TF, 0)))
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(deleted)))
	for _, id := range deleted {
		str(id)
	}
	return b
}

// logRecordSize is the length of appendLogRecord's payload, so that it
// is made in one allocation (grown from a guess, a batch's records
// allocated twice their size and copied on the way).
func logRecordSize(gen uint64, docs []Doc, fields [][]bm25.Field, deleted []string) int {
	ulen := func(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }
	str := func(s string) int { return ulen(uint64(len(s))) + len(s) }
	n := ulen(gen) + ulen(uint64(len(docs)))
	for i, d := range docs {
		n += str(d.ID) + ulen(uint64(len(fields[i])))
		for _, f := range fields[i] {
			n += str(f.Name) + ulen(uint64(f.Length)) + ulen(uint64(len(f.Terms)))
			for _, t := range f.Terms {
				n += str(t.Term) + ulen(uint64(max(t.TF, 0)))
			}
		}
	}
	n += ulen(uint64(len(deleted)))
	for _, id := range deleted {
		n += str(id)
	}
	return n
}

// decodeLogRecord decodes a payload of appendLogRecord; with decode
// false the documents' fields are skipped (nil).
func decodeLogRecord(p []byte, decode bool) (gen uint64, docs map[string][]bm25.Field, deleted []string, err error) {
	var bad bool
	num := func() uint64 {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			bad, p = true, nil
			return 0
		}
		p = p[n:]
		return v
	}
	str := func() string {
		n := num()
		if n > uint64(len(p)) {
			bad, p = true, nil
			return ""
		}
		s := string(p[:n])
		p = p[n:]
		return s
	}
	count := func() int { // a count of items of at least one byte each
		n := num()
		if n > uint64(len(p)) {
			bad, p = true, nil
			return 0
		}
		return int(n)
	}
	gen = num()
	nd := count()
	docs = make(map[string][]bm25.Field, nd)
	for range nd {
		id := str()
		nf := count()
		var fields []bm25.Field
		for range nf {
			name := str()
			length := num()
			nt := count()
			var terms []bm25.TermFreq
			if decode {
				terms = make([]bm25.TermFreq, 0, nt)
			}
			for range nt {
				term := str()
				tf := num()
				if decode {
					terms = append(terms, bm25.TermFreq{Term: term, TF: int(tf)})
				}
			}
			if decode {
				fields = append(fields, bm25.Field{Name: name, Length: int(length), Terms: terms})
			}
		}
		docs[id] = fields
	}
	nDel := count()
	for range nDel {
		deleted = append(deleted, str())
	}
	if bad || len(p) != 0 {
		return 0, nil, nil, errLogCorrupt
	}
	return gen, docs, deleted, nil
}

// load makes t.x: the base read whole with the log replayed. t.mu is held.
func (t *BM25Text) load() error {
	if t.x != nil {
		return nil
	}
	if !t.ok {
		return fmt.Errorf("full-text index %s must be rebuilt", t.dir)
	}
	x := bm25.New()
	if t.saved != nil {
		var err error
		if x, err = t.saved.Load(); err != nil {
			return err
		}
	}
	err := t.eachLogRecord(func(_ uint64, docs map[string][]bm25.Field, deleted []string) {
		x.Apply(docs, deleted)
	}, true)
	if err != nil {
		return err
	}
	t.x = x
	t.closeSaved()
	return nil
}

// overlay returns the log laid over the base (made on first use), or
// nil when the index is to be loaded instead: it is loaded, has no base,
// or the log would have compacted it. t.mu is held.
func (t *BM25Text) overlay() (*bm25.Overlay, error) {
	if t.over != nil || t.x != nil || t.saved == nil {
		return t.over, nil
	}
	o, err := t.saved.NewOverlay()
	if err != nil {
		return nil, err
	}
	err = t.eachLogRecord(func(_ uint64, docs map[string][]bm25.Field, deleted []string) {
		o.Apply(docs, deleted)
	}, true)
	if err != nil || o.Compacts() {
		return nil, err
	}
	t.over = o
	return o, nil
}

// Load loads the index in memory (the base read whole, the log replayed)
// if it is not yet: the daemon's text ranker then answers every search
// from memory (issue #15). It returns the error of reading the
// directory, ErrSavedCorrupt or a damaged log (wrapped).
func (t *BM25Text) Load() (err error) {
	defer Recover(t.dir, "load full-text index", &err)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keep = true
	if err := t.finishMerge(); err != nil {
		return err
	}
	return t.load()
}

// Loaded reports whether the index is loaded in memory (Load).
func (t *BM25Text) Loaded() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.x != nil
}

// Update implements Derived: docs are analyzed (BM25Fields), the write
// appended to the log, and applied to the index when loaded; a loaded
// index whose log outgrew compactMin and half its base's documents is
// compacted.
func (t *BM25Text) Update(docs []Doc, deleted []string, gen uint64) (err error) {
	defer Recover(t.dir, "update full-text index", &err)
	fields := bm25FieldsOf(docs)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ok {
		return fmt.Errorf("full-text index %s must be rebuilt", t.dir)
	}
	if m := t.merging; m != nil {
		select {
		case <-m.done:
		default:
			if m.logN < mergeMax {
				return t.updateMerging(docs, fields, deleted, gen)
			}
		}
		if err := t.finishMerge(); err != nil { // done, or too far behind
			return err
		}
	}
	if t.x == nil && t.over == nil && len(docs)+len(deleted) >= eagerOverlay {
		// A batch's write: its documents go to the overlay as analyzed
		// here, not decoded from the log at the next compaction.
		if _, err := t.overlay(); err != nil {
			return err
		}
	}
	// The record is encoded and appended on another goroutine while the
	// write is applied in memory: both only read docs and fields (for a
	// batch's chunk 0.6 and 1.8 CPU-s of +80,000 memories on the main
	// goroutine, pprof, docs/benchmarks.md).
	logged := make(chan error, 1)
	go func() {
		var err error
		defer func() { logged <- err }()
		defer Recover(t.dir, "append to full-text index log", &err)
		t.logBuf, err = t.appendLog(t.logBuf[:0], gen, docs, fields, deleted)
	}()
	if t.x != nil || t.over != nil {
		changed := make(map[string][]bm25.Field, len(docs))
		for i, d := range docs {
			changed[d.ID] = fields[i]
		}
		if t.x != nil {
			t.x.Apply(changed, deleted)
		} else {
			t.over.Apply(changed, deleted)
		}
	}
	if err := <-logged; err != nil {
		t.ok = false // the log may hold part of the record: rebuild
		return err
	}
	t.gen = gen
	t.logN += len(docs) + len(deleted)
	compacts := t.over != nil && t.over.Compacts() // the log is folded in now (compact loads the index for it)
	if compacts || t.x != nil && t.logN > max(compactMin, t.baseN/2) {
		return t.compact()
	}
	if t.x == nil && t.logN >= mergeMax {
		if t.over != nil && t.saved != nil {
			t.startMerge()
			return nil
		}
		return t.compact()
	}
	return nil
}

// updateMerging is Update while a merge runs: the write is appended to
// the log and kept for the new base's overlay. t.mu is held.
func (t *BM25Text) updateMerging(docs []Doc, fields [][]bm25.Field, deleted []string, gen uint64) error {
	rec, err := t.appendLog(nil, gen, docs, fields, deleted)
	if err != nil {
		t.ok = false
		return err
	}
	m := t.merging
	m.recs = append(m.recs, rec)
	m.logN += len(docs) + len(deleted)
	t.gen = gen
	t.logN += len(docs) + len(deleted)
	return nil
}

// startMerge starts merging the log (t.over) into a new base on its own
// goroutine (bgMerge). t.mu is held; t.over and t.saved are set.
func (t *BM25Text) startMerge() {
	m := &bgMerge{done: make(chan struct{}), over: t.over, gen: t.gen, n: t.over.Len(), path: filepath.Join(t.dir, bm25MergeFile)}
	t.over, t.merging = nil, m
	tag := bm25Tag(t.schema, m.gen, m.n)
	go func() {
		defer close(m.done)
		defer Recover(t.dir, "merge full-text index", &m.err)
		_, m.err = m.over.WriteSaved(m.path, tag)
	}()
}

// finishMerge waits for the running merge, if any, and puts its base in
// place: the new base renamed over the old, then the log replaced by the
// writes since the merge started (a crash between the two leaves records
// at or below the new base's generation, which are skipped), and those
// writes laid over the new base. A failed merge (a write error) leaves
// the old base and the whole log, which stay valid, with its overlay and
// the writes since applied to it: the next write that reaches mergeMax
// merges again. An error putting the new base in place is returned, the
// index then to be rebuilt. t.mu is held.
func (t *BM25Text) finishMerge() error {
	m := t.merging
	if m == nil {
		return nil
	}
	<-m.done
	t.merging = nil
	if m.err != nil { // the old base and log stand: the next merge tries again
		t.mergeFailures++
		_ = os.RemoveAll(m.path)
		t.over = m.over
		if err := applyRecs(t.over, m.recs); err != nil {
			t.ok = false
			return err
		}
		return nil
	}
	base := filepath.Join(t.dir, bm25BaseFile)
	if err := os.Rename(m.path, base); err != nil {
		t.ok = false
		return err
	}
	t.closeSaved()
	var err error
	if t.saved, err = bm25.OpenSaved(base); err != nil {
		t.ok = false
		return err
	}
	t.baseGen, t.baseN = m.gen, m.n
	if t.logFile != nil {
		_ = t.logFile.Close()
		t.logFile = nil
	}
	if err := writeFileAtomic(filepath.Join(t.dir, bm25LogFile), m.recs); err != nil {
		t.ok = false
		return err
	}
	t.logN = m.logN
	if len(m.recs) > 0 {
		o, err := t.saved.NewOverlay()
		if err == nil {
			err = applyRecs(o, m.recs)
		}
		if err != nil {
			t.ok = false
			return err
		}
		t.over = o
		if o.Compacts() {
			return t.compact()
		}
	}
	return nil
}

// writeFileAtomic writes the concatenation of parts to path through a
// temporary file renamed over it (no part: an empty file).
func writeFileAtomic(path string, parts [][]byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	for _, p := range parts {
		if _, err = f.Write(p); err != nil {
			break
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// appendLog appends one record to the log in one write and returns it,
// encoded into buf's room (nil: a new slice, for a record kept; Update
// passes the previous record's, t.logBuf, as the write drops it). The
// record is framed. t.mu is held.
func (t *BM25Text) appendLog(buf []byte, gen uint64, docs []Doc, fields [][]bm25.Field, deleted []string) ([]byte, error) {
	if t.logFile == nil {
		f, err := os.OpenFile(filepath.Join(t.dir, bm25LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		t.logFile = f
	}
	rec := slices.Grow(buf[:0], 8+logRecordSize(gen, docs, fields, deleted))[:8]
	rec = appendLogRecord(rec, gen, docs, fields, deleted)
	binary.LittleEndian.PutUint32(rec, uint32(len(rec)-8))
	binary.LittleEndian.PutUint32(rec[4:], crc32.ChecksumIEEE(rec[8:]))
	_, err := t.logFile.Write(rec)
	return rec, err
}

// compact saves the index with the log's writes as the new base and
// removes the log: the loaded index, else the log laid over the base
// (bm25.Overlay.WriteSaved: one term at a time, without loading the
// base), else, when the log would have compacted the loaded index, the
// index loaded for it. The base is replaced atomically (WriteSaved)
// before the log goes: a crash between the two leaves log records at or
// below the base's generation, which are skipped. An index loaded only
// for this is dropped after, and the new base opened for searches. t.mu
// is held.
func (t *BM25Text) compact() error {
	path := filepath.Join(t.dir, bm25BaseFile)
	var err error
	if t.x == nil {
		var o *bm25.Overlay
		if o, err = t.overlay(); err != nil {
			return err
		}
		if o != nil && o.Compacts() {
			t.over, o = nil, nil // loaded instead
		}
		if o != nil {
			_, err = o.WriteSaved(path, bm25Tag(t.schema, t.gen, o.Len()))
			t.baseN = o.Len()
		} else if err = t.load(); err != nil {
			return err
		}
	}
	if t.x != nil {
		_, err = t.x.WriteSaved(path, bm25Tag(t.schema, t.gen, t.x.Len()))
		t.baseN = t.x.Len()
	}
	if err != nil {
		return err
	}
	t.baseGen = t.gen
	if t.logFile != nil {
		_ = t.logFile.Close()
		t.logFile = nil
	}
	if err := os.Remove(filepath.Join(t.dir, bm25LogFile)); err != nil && !os.IsNotExist(err) {
		return err
	}
	t.logN = 0
	if !t.keep {
		t.x = nil
	}
	if t.x == nil {
		t.closeSaved()
		if t.saved, err = bm25.OpenSaved(path); err != nil {
			t.ok = false
			return err
		}
	}
	return nil
}

// Rebuild implements Derived: the directory is emptied, docs indexed in
// memory, saved as the base at generation gen, and the schema recorded
// last, so an interrupted rebuild is redone.
func (t *BM25Text) Rebuild(docs []Doc, gen uint64) (err error) {
	defer Recover(t.dir, "rebuild full-text index", &err)
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.finishMerge() // its result is replaced
	t.closeFiles()
	t.x, t.ok = nil, false
	if err := os.RemoveAll(t.dir); err != nil {
		return fmt.Errorf("reset full-text index: %w", err)
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("create full-text index: %w", err)
	}
	x := bm25.New()
	for len(docs) > 0 { // in writes of 1,000, as memories are written
		n := min(len(docs), 1000)
		changed := make(map[string][]bm25.Field, n)
		for i, f := range bm25FieldsOf(docs[:n]) {
			changed[docs[i].ID] = f
		}
		x.Apply(changed, nil)
		docs = docs[n:]
	}
	t.x, t.gen, t.logN = x, gen, 0
	if err := t.compact(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(t.dir, schemaFile), []byte(t.schema+"\n"), 0o600); err != nil {
		return err
	}
	t.ok = true
	return nil
}

// Generation implements Derived: the generation of the last write in the
// log, else the base's; unknown for an index to rebuild.
func (t *BM25Text) Generation() (uint64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen, t.ok
}

// Invalidate implements Derived: the schema file goes, so the next
// OpenBM25Text reports the index as not ok, and this one refuses writes.
func (t *BM25Text) Invalidate() {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.finishMerge()
	t.ok = false
	_ = os.Remove(filepath.Join(t.dir, schemaFile))
}

// Count implements Derived: the live documents (the base's count while
// the log is empty, else the loaded index's).
func (t *BM25Text) Count() (n uint64, err error) {
	defer Recover(t.dir, "count full-text index", &err)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.finishMerge(); err != nil {
		return 0, err
	}
	if t.x == nil && t.logN == 0 {
		return uint64(t.baseN), nil
	}
	if o, err := t.overlay(); err != nil || o != nil {
		if err != nil {
			return 0, err
		}
		return uint64(o.Len()), nil
	}
	if err := t.load(); err != nil {
		return 0, err
	}
	return uint64(t.x.Len()), nil
}

// Search implements Derived: the clauses of q (BM25Clauses) ranked by the
// loaded index (bm25.Index.Search, MaxScore), or, when it is not loaded
// and the log is empty, by the base on disk (bm25.Saved.Search: the
// query terms' blocks only); while not loaded with a log, the index is
// loaded first. Ties by id. A damaged base or log is an error wrapping
// bm25.ErrSavedCorrupt: the index is then to be rebuilt.
func (t *BM25Text) Search(_ context.Context, q Query) (out []Scored, err error) {
	defer Recover(t.dir, "search", &err)
	clauses := BM25Clauses(q)
	k := max(q.Limit, 1)
	var hits []bm25.Hit
	t.mu.Lock()
	if err := t.finishMerge(); err != nil {
		t.mu.Unlock()
		return nil, err
	}
	switch {
	case t.x != nil:
		x := t.x
		t.mu.Unlock() // x has its own lock; searches share it
		hits = x.Search(clauses, k, true)
	case t.logN == 0 && t.saved != nil:
		hits, err = t.saved.Search(clauses, k, true)
		t.mu.Unlock()
	case t.logN == 0: // no base: closed
		t.mu.Unlock()
		return nil, fmt.Errorf("full-text index %s is closed", t.dir)
	default:
		var o *bm25.Overlay
		if o, err = t.overlay(); o != nil {
			hits, err = o.Search(clauses, k, true)
			t.mu.Unlock()
			break
		}
		if err == nil {
			err = t.load()
		}
		x := t.x
		t.mu.Unlock()
		if err == nil {
			hits = x.Search(clauses, k, true)
		}
	}
	if err != nil {
		return nil, err
	}
	out = make([]Scored, len(hits)) // best first, ties by id (bm25)
	for i, h := range hits {
		out[i] = Scored{ID: h.ID, Score: h.Score}
	}
	return out, nil
}

// Close implements Derived: the log is compacted into the base first
// when the index is loaded or the log holds closeCompactMin documents or
// more (compact), so that the next process searches the
// base on disk; a failure to leaves the log, which stays valid.
func (t *BM25Text) Close() (err error) {
	defer Recover(t.dir, "close full-text index", &err)
	t.mu.Lock()
	defer t.mu.Unlock()
	err = t.finishMerge()
	if err == nil && t.ok && t.logN > 0 && (t.x != nil || t.logN >= closeCompactMin) {
		err = t.compact()
	}
	t.closeFiles()
	t.x = nil
	t.ok = false
	return err
}

func (t *BM25Text) closeSaved() {
	t.over = nil
	if t.saved != nil {
		_ = t.saved.Close()
		t.saved = nil
	}
}

func (t *BM25Text) closeFiles() {
	t.closeSaved()
	if t.logFile != nil {
		_ = t.logFile.Close()
		t.logFile = nil
	}
}
