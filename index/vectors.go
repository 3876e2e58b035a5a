package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/embed"
)

// VectorText is the Doc field a vector index embeds (the contextual text
// of a memory). A Doc without it is embedded from all its fields joined
// in name order.
const VectorText = "text"

// UpdateTimeout bounds the embedding calls of one Vectors.Update (a
// memory write), so that a hung remote embedder cannot hold a write for
// long; the index is then marked for rebuild by the caller.
var UpdateTimeout = 15 * time.Second

// rebuildBatch is the number of texts per Embed call of Rebuild.
const rebuildBatch = 64

// Vectors is the derived vector index of one directory: one L2-normalised
// float32 vector per document, all of one embedding model (its id and
// dimension are stored with the rows, so vectors of different models are
// never compared), searched exactly by brute-force cosine similarity.
// Files and their recovery are described in vectors_file.go. Methods are
// safe for concurrent use.
type Vectors struct {
	dir string
	// Progress, when set, receives the number of documents embedded so far
	// and the total during Rebuild (after each batch).
	Progress func(done, total int)

	mu      sync.RWMutex
	emb     embed.Embedder
	st      *vecState
	logRecs int       // records in the log since the base
	base    *baseFile // the mapped base file st's rows may point into; nil once released
}

var _ Derived = (*Vectors)(nil)

// OpenVectors opens the vector index in dir for embedder e, creating dir.
// ok is false when the index must be rebuilt: missing, corrupt (a torn
// log, or a base file that is damaged where its structure shows it or
// whose checksum is checked because a log is replayed over it), written
// by another model or dimension, or marked invalid. Otherwise a base
// file's checksum is verified by the first scan of its rows (of a
// GLOSSVX3 file: the int8 rows, and each float32 row the scan reads) or
// before any other use of them (rowsCheck); a mismatch then empties the index
// and is returned as ErrVectorsCorrupt, and the index reports an unknown
// generation, to be rebuilt. Rows of the same model survive a corrupt log so that Rebuild
// re-embeds only documents whose text changed. err is set only when dir
// cannot be created. It is ReadVectorFiles(dir).Open(e).
func OpenVectors(dir string, e embed.Embedder) (v *Vectors, ok bool, err error) {
	return ReadVectorFiles(dir).Open(e)
}

// VectorFiles are the files of a vector index in a directory, read and
// checked (ReadVectorFiles) before the embedder they are for is known:
// a process that opens the index for one search reads them while it
// loads its embedder (at 100,000 memories each took about a third of the
// vector ranker's time, docs/benchmarks.md). Open or Release them once.
type VectorFiles struct {
	dir    string
	dirErr error
	log    vecLog
	lerr   error
	file   *baseFile
	st     *vecState // decoded base, nil when rerr is set
	rerr   error
}

// ReadVectorFiles creates dir if needed and reads the base file (mapped,
// the CRC-32 of all but its rows computed, see rowsCheck) and the log file of the vector
// index in it. Problems are kept for Open, which reports or recovers
// from them as OpenVectors does.
func ReadVectorFiles(dir string) *VectorFiles {
	f := &VectorFiles{dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		f.dirErr = fmt.Errorf("vector index: %w", err)
		return f
	}
	f.log, f.lerr = readLog(filepath.Join(dir, vecLogFile))
	f.file, f.rerr = readBase(filepath.Join(dir, vecBaseFile))
	if f.rerr == nil {
		f.st, f.rerr = decodeBase(f.file, f.log.upserts())
	}
	return f
}

// Release unmaps the base file of files that will not be opened; a nil
// f is ignored.
func (f *VectorFiles) Release() {
	if f == nil {
		return
	}
	f.file.release()
	f.file, f.st = nil, nil
}

// Open returns the vector index of the files for embedder e; ok and err
// as for OpenVectors. The files must not be used afterwards.
func (f *VectorFiles) Open(e embed.Embedder) (v *Vectors, ok bool, err error) {
	if f.dirErr != nil {
		return nil, false, f.dirErr
	}
	v = &Vectors{dir: f.dir, emb: e}
	log, lerr, file, st, rerr := f.log, f.lerr, f.file, f.st, f.rerr
	f.file, f.st = nil, nil
	if rerr != nil || st.model != e.Model() || (e.Dim() != 0 && st.dim != e.Dim()) {
		// Missing, corrupt, or another model: start empty.
		file.release()
		v.st = v.emptyState(0)
		return v, false, nil
	}
	v.base = file
	if lerr == nil && log.epoch == st.epoch && len(log.recs) > 0 {
		// Replaying may change rows in place: check them first (of a
		// GLOSSVX3 file, the int8 rows; verifyForReplay).
		if err := st.verifyForReplay(); err != nil {
			_ = v.corrupt()
			return v, false, nil
		}
	}
	n := 0
	if lerr == nil {
		n, lerr = log.replay(st)
	}
	if lerr != nil {
		st, _ = decodeBase(file, 0) // the base alone, for reuse by Rebuild
		st.known = false
		n = 0
	}
	v.st, v.logRecs = st, n
	if st.known && (longLog(n, st.rows()) || st.old) {
		// Compact now, so that the next opening (a CLI call) does not
		// replay the log again, or write a GLOSSVX2 base in the current
		// format (with compact rows); on failure (a read-only home) the
		// index still serves from the replayed rows.
		_ = v.writeBase(st)
	}
	return v, st.known, nil
}

// longLog reports whether a log of recs records over an index of rows
// rows is compacted into the base: when it holds more than 1,024 records
// and more than rows/64. Every opening replays the whole log (a CLI
// process opens the index per call), while compaction writes the base
// once per rows/64 records; at 100,000 rows the former bound of rows/4
// let a log of 25,000 records grow, whose replay was most of a CLI
// search (pprof, docs/benchmarks.md).
func longLog(recs, rows int) bool { return recs > max(1024, rows/64) }

func (v *Vectors) emptyState(epoch uint64) *vecState {
	return &vecState{model: v.emb.Model(), dim: v.emb.Dim(), epoch: epoch}
}

// Model returns the model id of the rows (the embedder's).
func (v *Vectors) Model() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.st.model
}

// Dim returns the length of the rows (0 before the first vector of an
// embedder that reports no dimension in advance).
func (v *Vectors) Dim() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.st.dim
}

// Embedder returns the index's embedder.
func (v *Vectors) Embedder() embed.Embedder {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.emb
}

// SetEmbedder switches the index to e. When e's model differs from the
// rows', the rows are dropped and the index needs a Rebuild (Generation
// reports it unknown); it returns whether that happened.
func (v *Vectors) SetEmbedder(e embed.Embedder) (reset bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.emb = e
	if v.st.model == e.Model() {
		return false
	}
	v.st = v.emptyState(v.st.epoch)
	v.dropBase()
	return true
}

// checkRows verifies the rows of a base file not verified yet
// (vecState.verifyRows) before they are used other than by a scan; on a
// mismatch the index becomes empty at an unknown generation, as
// OpenVectors leaves a damaged index, and the error wraps
// ErrVectorsCorrupt. The caller holds mu for writing.
func (v *Vectors) checkRows() error {
	if err := v.st.verifyRows(); err != nil {
		return v.corrupt()
	}
	return nil
}

// corrupt empties an index whose base file's checksum is wrong and
// returns the error to report (wrapping ErrVectorsCorrupt). The caller
// holds mu for writing.
func (v *Vectors) corrupt() error {
	v.st = v.emptyState(0)
	v.dropBase()
	v.logRecs = 0
	return fmt.Errorf("%w in %s", ErrVectorsCorrupt, filepath.Join(v.dir, vecBaseFile))
}

// dropBase releases the mapped base file once v.st no longer refers to
// it (a state built by emptyState or RebuildContext holds heap rows). The
// caller holds mu for writing, so no search reads the rows meanwhile.
func (v *Vectors) dropBase() {
	v.base.release()
	v.base = nil
}

// docText is the text a vector index embeds of d: d.Text when d has no
// Fields, else Fields[VectorText], else the fields' texts joined by
// newlines in the order of their names.
func docText(d Doc) string {
	if d.Fields == nil {
		return d.Text
	}
	if t, ok := d.Fields[VectorText]; ok {
		return t
	}
	names := make([]string, 0, len(d.Fields))
	for n := range d.Fields {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = d.Fields[n]
	}
	return strings.Join(parts, "\n")
}

// textHash is the 64-bit FNV-1a hash of s (hash/fnv's New64a, computed
// over the string without copying it to bytes), kept with each row to
// tell a document whose text changed.
func textHash(s string) uint64 {
	const offset64, prime64 = 14695981039346656037, 1099511628211 // hash/fnv
	h := uint64(offset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime64
	}
	return h
}

// embedMissing returns the vectors of docs, reusing the row of a document
// whose text hash is unchanged and embedding the others in batches
// (reporting progress when report is set). The vectors lie in block, one
// array of len(docs) rows in docs' order (vecs[i] is row i), so that a
// rebuild keeps block as its rows instead of copying every vector (at
// 100,000 memories the copy was 51 MB more at the re-embedding's peak);
// a vector whose length differs from the first one's is allocated apart
// (fixDim then reports it), and block is nil when docs is empty.
func (v *Vectors) embedMissing(ctx context.Context, docs []Doc, report bool) (vecs [][]float32, block []float32, hashes []uint64, err error) {
	dim := 0
	slot := func(i, n int) []float32 {
		if block == nil {
			dim, block = n, make([]float32, len(docs)*n)
		}
		if n != dim {
			return make([]float32, n)
		}
		return block[i*dim : (i+1)*dim : (i+1)*dim]
	}
	v.mu.Lock() // st.index may build the id map
	if err := v.checkRows(); err != nil {
		v.mu.Unlock()
		return nil, nil, nil, err
	}
	e, st := v.emb, v.st
	vecs = make([][]float32, len(docs))
	hashes = make([]uint64, len(docs))
	var todo []int
	for i, d := range docs {
		hashes[i] = textHash(docText(d))
		if r, ok := st.index(d.ID); ok && st.hash[r] == hashes[i] && st.model == e.Model() {
			row := st.row(r)
			vecs[i] = slot(i, len(row))
			copy(vecs[i], row)
		} else {
			todo = append(todo, i)
		}
	}
	v.mu.Unlock()
	done := len(docs) - len(todo)
	for len(todo) > 0 {
		n := min(len(todo), rebuildBatch)
		texts := make([]string, n)
		for j, i := range todo[:n] {
			texts[j] = docText(docs[i])
		}
		out, err := e.Embed(ctx, texts)
		if err == nil && len(out) != n {
			err = fmt.Errorf("embedder %s returned %d vectors for %d texts", e.Model(), len(out), n)
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("embed: %w", err)
		}
		for j, i := range todo[:n] {
			vecs[i] = slot(i, len(out[j]))
			copy(vecs[i], out[j])
		}
		todo, done = todo[n:], done+n
		if report && v.Progress != nil {
			v.Progress(done, len(docs))
		}
	}
	return vecs, block, hashes, nil
}

// fixDim sets the dimension of an index that has none yet from vecs and
// checks every vector against it.
func (st *vecState) fixDim(vecs [][]float32) error {
	for _, x := range vecs {
		if st.dim == 0 {
			st.dim = len(x)
		}
		if len(x) != st.dim || st.dim == 0 {
			return fmt.Errorf("vector of length %d in an index of dimension %d (model %s)", len(x), st.dim, st.model)
		}
	}
	return nil
}

// Update implements Derived: the documents whose text changed are
// embedded (within UpdateTimeout), then the changes and generation gen
// are appended to the log; a long log is compacted into the base.
func (v *Vectors) Update(docs []Doc, deleted []string, gen uint64) error {
	return v.update(context.Background(), docs, deleted, gen, true)
}

// Append is Update without the compaction of a long log: a bulk write
// of many updates (`remember --batch`, one Update per 1,000 memories)
// calls it for each and CompactLog once at the end, instead of
// rewriting the whole base (about 85 MB at 100,000 rows) every second
// update. The index stays correct in between: opening it replays the
// longer log.
func (v *Vectors) Append(docs []Doc, deleted []string, gen uint64) error {
	return v.AppendContext(context.Background(), docs, deleted, gen)
}

// AppendContext is Append whose embedding calls end with ctx as well as
// after UpdateTimeout, whichever comes first: a re-embedding
// (memory.Workspace.ReembedChanged) stops within one Embed request's
// cancellation, not up to UpdateTimeout later, when its caller is
// stopped (daemon shutdown, Ctrl-C) while a remote embedder hangs. On
// an error, ctx's included (wrapped; errors.Is(err, context.Canceled)
// holds), nothing is appended and the index is unchanged.
func (v *Vectors) AppendContext(ctx context.Context, docs []Doc, deleted []string, gen uint64) error {
	return v.update(ctx, docs, deleted, gen, false)
}

// Reserve makes room in the heap for n more rows (n × Dim float32s), so
// that appending them does not copy the rows added before: a row block
// grown one write at a time is copied at each growth (by 1.25× past
// 256 rows, Go's append), which allocated about 5 times the rows'
// bytes, 345 MB for an 80,000-memory `remember --batch`
// (docs/benchmarks.md). n ≤ 0 does nothing; so does an index not at a
// known dimension yet.
func (v *Vectors) Reserve(n int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if st := v.st; n > 0 && st.dim > 0 {
		st.extra = slices.Grow(st.extra, n*st.dim)
	}
}

// CompactLog writes the base and resets the log when the log is long
// (more than max(1,024, rows/64) records, the bound Update compacts at);
// it does nothing otherwise, or when the index is not at a known
// generation (it is rebuilt instead).
func (v *Vectors) CompactLog() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.checkRows(); err != nil {
		return err
	}
	if !v.st.known || !longLog(v.logRecs, v.st.rows()) {
		return nil
	}
	return v.writeBase(v.st)
}

func (v *Vectors) update(ctx context.Context, docs []Doc, deleted []string, gen uint64, compact bool) error {
	ctx, cancel := context.WithTimeout(ctx, UpdateTimeout)
	defer cancel()
	vecs, _, hashes, err := v.embedMissing(ctx, docs, false)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	st := v.st
	if st.model != v.emb.Model() {
		return errors.New("vector index: the embedder changed during an update")
	}
	if err := st.fixDim(vecs); err != nil {
		return err
	}
	recs := make([][]byte, 0, len(docs)+len(deleted)+1)
	// The upsert records share one buffer of their exact size: grown row
	// by row from one byte they allocated 131 MB per 80,000 memories.
	size := 0
	for i, d := range docs {
		size += 1 + rowSize(d.ID, len(vecs[i]))
	}
	rows := make([]byte, 0, size)
	for i, d := range docs {
		embed.Normalize(vecs[i])
		st.put(d.ID, hashes[i], vecs[i])
		start := len(rows)
		rows = appendRow(append(rows, recUpsert), d.ID, hashes[i], vecs[i])
		recs = append(recs, rows[start:len(rows):len(rows)])
	}
	for _, id := range deleted {
		st.remove(id)
		recs = append(recs, append([]byte{recDelete}, id...))
	}
	st.gen, st.known = gen, true
	recs = append(recs, le.AppendUint64([]byte{recGeneration}, gen))
	if compact && longLog(v.logRecs+len(recs), st.rows()) {
		return v.writeBase(st)
	}
	if err := appendLog(filepath.Join(v.dir, vecLogFile), st.epoch, recs); err != nil {
		return fmt.Errorf("vector index log: %w", err)
	}
	v.logRecs += len(recs)
	return nil
}

// writeBase writes st as the new base with a new epoch and removes the
// log. The caller holds mu.
func (v *Vectors) writeBase(st *vecState) error {
	if st == v.st { // never write damaged rows under a new checksum
		if err := v.checkRows(); err != nil {
			return err
		}
	}
	st.epoch++
	if err := writeBaseFile(filepath.Join(v.dir, vecBaseFile), st); err != nil {
		return fmt.Errorf("write vector index: %w", err)
	}
	v.st, v.logRecs = st, 0
	if err := os.Remove(filepath.Join(v.dir, vecLogFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reset vector index log: %w", err)
	}
	v.remapBase()
	return nil
}

// remapBase replaces the rows of v.st, just written to the base file, by
// the file's, mapped, as OpenVectors reads them: the rows added since
// the index was opened (about 1 KiB each with the built-in model) then
// leave the Go heap, whose collector otherwise ran ever more often as an
// ingest added them (at 100,000 memories, 80 MB of rows under
// `remember --batch`'s 200 MiB heap limit then; docs/benchmarks.md). The
// caller holds mu for writing. The checksum is not verified here (the
// next OpenVectors does): reading every page would make the whole file
// resident. Should the file not read back as the state written (it
// always does unless the disk fails), the heap rows are kept.
func (v *Vectors) remapBase() {
	file, err := readBase(filepath.Join(v.dir, vecBaseFile))
	if err != nil {
		return
	}
	st, err := decodeBaseChecked(file, 0, false)
	if err != nil || st.model != v.st.model || st.dim != v.st.dim || st.gen != v.st.gen || st.epoch != v.st.epoch || st.rows() != v.st.rows() {
		file.release()
		return
	}
	st.known = v.st.known
	file.dropResident()
	v.dropBase()
	v.st, v.base = st, file
}

// Rebuild implements Derived with RebuildContext and no deadline.
func (v *Vectors) Rebuild(docs []Doc, gen uint64) error {
	return v.RebuildContext(context.Background(), docs, gen)
}

// RebuildContext replaces the index by docs at generation gen. Rows of
// the current model whose document text is unchanged are reused; the
// rest are embedded in batches of 64, reporting Progress. On error
// (embedder failure, ctx ended) the index is unchanged.
func (v *Vectors) RebuildContext(ctx context.Context, docs []Doc, gen uint64) error {
	vecs, block, hashes, err := v.embedMissing(ctx, docs, true)
	if errors.Is(err, ErrVectorsCorrupt) { // no rows to reuse: embed every document
		vecs, block, hashes, err = v.embedMissing(ctx, docs, true)
	}
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	st := v.emptyState(v.st.epoch)
	if st.dim == 0 {
		st.dim = v.st.dim
	}
	if err := st.fixDim(vecs); err != nil {
		return err
	}
	// The rows are block's (embedMissing): put appends each row onto
	// itself, or, after a duplicate id, onto an earlier row already put.
	st.data = block[:0]
	if len(block) != len(docs)*st.dim {
		st.data = make([]float32, 0, len(docs)*st.dim)
	}
	for i, d := range docs {
		embed.Normalize(vecs[i])
		st.put(d.ID, hashes[i], vecs[i])
	}
	st.gen, st.known = gen, true
	err = v.writeBase(st)
	if v.st == st {
		v.dropBase()
	}
	return err
}

// Replace makes v the index next was: next's embedder, rows, generation
// and log, served from v's directory, into which the caller has just
// moved next's files (the vector index's background re-embedding builds
// a new model's index beside the old one and swaps them). Searches in
// flight finish on the old rows first (Replace waits for them), and a
// search whose query was embedded with the old model embeds it again
// (Search), so vectors of the two models are never compared. The old
// rows' mapped base file is released; next must not be used afterwards.
func (v *Vectors) Replace(next *Vectors) {
	next.mu.Lock()
	emb, st, base, logRecs := next.emb, next.st, next.base, next.logRecs
	next.st, next.base, next.logRecs = next.emptyState(st.epoch), nil, 0
	next.mu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	v.dropBase()
	v.emb, v.st, v.base, v.logRecs = emb, st, base, logRecs
}

// Generation implements Derived.
func (v *Vectors) Generation() (uint64, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.st.gen, v.st.known
}

// Invalidate implements Derived: an invalid-marker is logged, so the
// index reports an unknown generation now and after reopening.
func (v *Vectors) Invalidate() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.st.known = false
	if appendLog(filepath.Join(v.dir, vecLogFile), v.st.epoch, [][]byte{{recInvalid}}) == nil {
		v.logRecs++
	}
}

// Count implements Derived.
func (v *Vectors) Count() (uint64, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return uint64(v.st.rows()), nil
}

// Close implements Derived: the files are closed after every write, so
// it only releases the mapped base file; v must not be used afterwards.
func (v *Vectors) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.st = v.emptyState(v.st.epoch)
	v.dropBase()
	return nil
}

// Search implements Derived: the texts of q are embedded, summed by
// weight and normalised, and the documents nearest to that vector are
// returned (cosine similarity, -1..1; ties by id ascending). q.Fields is
// ignored. When the index's model changed (Replace, SetEmbedder) while
// the query was embedded, the query is embedded again with the new
// model: a query vector is only compared with rows of its own model.
func (v *Vectors) Search(ctx context.Context, q Query) ([]Scored, error) {
	for try := 0; ; try++ {
		e := v.Embedder()
		qv, err := embedQuery(ctx, e, q)
		if err != nil || qv == nil {
			return nil, err
		}
		hits, same, err := v.searchModel(qv, q.Limit, e.Model())
		if same {
			return hits, err
		}
		if try == 2 {
			return nil, fmt.Errorf("vector index: the model changed during each of 3 searches")
		}
	}
}

// embedQuery returns the unit vector of q's texts summed by weight, as
// embedded by e; nil for a query without texts.
func embedQuery(ctx context.Context, e embed.Embedder, q Query) ([]float32, error) {
	texts := make([]string, len(q.Texts))
	for i, t := range q.Texts {
		texts[i] = t.Text
	}
	if len(texts) == 0 {
		return nil, nil
	}
	out, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	var qv []float32
	for i, x := range out {
		if qv == nil {
			qv = make([]float32, len(x))
		}
		if len(x) != len(qv) {
			return nil, fmt.Errorf("embedder %s returned vectors of lengths %d and %d", e.Model(), len(qv), len(x))
		}
		for j := range x {
			qv[j] += float32(q.Texts[i].Weight) * x[j]
		}
	}
	embed.Normalize(qv)
	return qv, nil
}
