package memory

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
)

// RememberChunk is how many requests of RememberBatch share one durable
// write (one Pebble batch) and one update of the derived search index.
// Memory in use is bounded by a chunk, not by the batch.
const RememberChunk = 1000

// batchFilesBudget bounds the source bytes of the parsed files
// RememberBatch keeps between chunks (64 MiB); past it the cache is
// emptied. Files are kept without their syntax trees (index.File.DropTree),
// about 3 times their source size.
const batchFilesBudget = 64 << 20

// batchState is what the chunks of one RememberBatch share: the commit
// and branch checked out, the blob of each anchor path in that commit, and
// the parsed files (trees dropped) by workspace-relative path.
type batchState struct {
	commit, branch string
	blobs          map[string]string
	files          map[string]*index.File
	// stored are the files built from their stored index records
	// (storedFile; nil when the record does not describe the file on
	// disk), and rels the answers of RelPath, by request path.
	stored map[string]*index.File
	rels   map[string]relResult
	// carried are the files built from stored records by the previous
	// RememberBatch call at the same index generation (Options.
	// KeepBatchFiles); storedFile takes one when the file on disk has
	// its bytes. gen is the index generation at the start of the batch.
	carried map[string]*index.File
	// readBuf is the buffer a carried file is read into to be compared
	// with the disk (storedFile), reused from file to file.
	readBuf []byte
	gen     uint64
	genOK   bool
	// duplicates asks for a near-duplicate check of each new memory
	// (batches of at most maxDuplicateChecks requests).
	duplicates bool
	// derivedOpen is set once the derived indexes were opened before a
	// chunk's write (commitChunk); derived runs the chunks' updates of
	// them (derivedQueue).
	derivedOpen bool
	derived     derivedQueue
	// writeBytes is the size of the last chunk's Pebble batch
	// (index.MemoryBatch.Len), the next chunk's batch is allocated with
	// room for an eighth more; 0 before the first chunk.
	writeBytes int
	// bulk counts the rows a batch of several chunks adds to the vector
	// index between compactions of its log; nil for a batch of one chunk.
	bulk *bulkRows
}

func (w *Workspace) newBatchState() *batchState {
	st := &batchState{blobs: map[string]string{}, files: map[string]*index.File{},
		stored: map[string]*index.File{}, rels: map[string]relResult{}}
	st.renew(w)
	return st
}

// bodyHashSites returns the definition sites with body hash h: from the
// index of a large batch when one is loaded, else from the store.
func (w *Workspace) bodyHashSites(h string) ([]index.Site, error) {
	if w.batchSites != nil {
		return w.batchSites[h], nil
	}
	return w.Store.BodyHashSites(h)
}

// loadBatchSites loads every body hash site for a batch of n requests
// when n is large enough for one scan to beat n lookups (w.writeMu is
// held); the returned function drops them.
func (w *Workspace) loadBatchSites(n int) func() {
	if n < 256 {
		return func() {}
	}
	sites, err := w.Store.BodyHashIndex()
	if err != nil {
		return func() {} // answered one by one from the store instead
	}
	w.batchSites = sites
	return func() { w.batchSites = nil }
}

// trim empties the file cache when it holds more than batchFilesBudget
// bytes of source, and returns the syntax tree arenas gotreesitter pools
// to the Go heap (the pool only grows otherwise).
func (st *batchState) trim() {
	ts.DrainArenaPools()
	n := 0
	for _, f := range st.files {
		n += len(f.Src)
	}
	for _, f := range st.stored {
		if f != nil {
			n += len(f.Src)
		}
	}
	if n > batchFilesBudget {
		st.release()
	}
}

// renew makes the rest of a long batch see the workspace as a new
// RememberBatch call would, every bulkWindow requests of a stream
// (RememberStream): the commit and branch checked out are read again, the
// blobs and path answers asked again, the files parsed are dropped, and
// those built from stored records are carried, to be compared with the
// disk at their next use (storedFile). A file edited or a commit made
// while a stream of minutes runs is seen within a window, as it was
// between the calls a batch used to be cut into.
func (st *batchState) renew(w *Workspace) {
	st.commit, _ = git(w.Root, "rev-parse", "--verify", "-q", "HEAD")
	st.branch, _ = git(w.Root, "rev-parse", "--abbrev-ref", "HEAD")
	clear(st.blobs)
	clear(st.rels)
	for p, f := range st.stored {
		if f == nil {
			continue
		}
		if st.carried == nil {
			st.carried = map[string]*index.File{}
		}
		st.carried[p] = f
	}
	st.release()
}

func (st *batchState) release() {
	for p, f := range st.files {
		f.Release()
		delete(st.files, p)
	}
	clear(st.stored)
}

// rememberChunk creates the memories of one chunk of RememberBatch
// (reqs, with out and errs its slots of the results): each request is
// validated and anchored (newMemory), the anchors get the git commit and
// the blob of their file (one git ls-tree for the chunk's new paths), then
// the memories are written in one durable batch and one search index
// update. On a failed write the chunk's memories are errors and their
// files are removed. w.writeMu is held. The derived indexes' update of
// the chunk may still run when it returns (commitChunk): the caller waits
// for st.derived before it releases w.writeMu, as RememberBatchEach does.
func (w *Workspace) rememberChunk(ctx context.Context, reqs []RememberRequest, out []*Memory, errs []error, st *batchState) {
	w.noteBatchGeneration()
	if st.duplicates || slices.ContainsFunc(reqs, func(r RememberRequest) bool { return r.OnDuplicate != "" }) {
		st.derived.wait() // checkDuplicates searches them
	}
	w.preparse(reqs, st)
	valid, verrs := w.validateChunk(reqs)
	var created []*Memory
	kept := make([]bool, len(reqs)) // out[i] is a stored memory (a duplicate policy's NOOP or UPDATE)
	for i, req := range reqs {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		m, err := w.newMemory(req, valid[i], verrs[i], st)
		if err != nil {
			errs[i] = err
			continue
		}
		if st.duplicates || req.OnDuplicate != "" {
			existing, err := w.checkDuplicates(ctx, req, m)
			if err != nil {
				errs[i] = err
				continue
			}
			if existing != nil {
				out[i], kept[i] = existing, true // NOOP or UPDATE: no new record
				continue
			}
		}
		out[i] = m
		created = append(created, m)
	}
	w.stampBlobs(created, st)
	b := w.Store.NewMemoryBatchSize(st.writeBytes + st.writeBytes/8)
	created = created[:0]
	var at []int // the place in out of each memory of created
	for i, m := range out {
		if m == nil || kept[i] {
			continue
		}
		w.stampFile(m) // the file first: a crash before the commit reloads it
		created, at = append(created, m), append(at, i)
	}
	putErrs := w.putMemories(b, created)
	created = created[:0]
	for k, i := range at {
		if err := putErrs[k]; err != nil {
			_ = w.RemoveMemoryFile(out[i])
			out[i], errs[i] = nil, err
			continue
		}
		created = append(created, out[i])
	}
	if len(created) == 0 {
		b.Close()
		return
	}
	err := w.keepCheckStates(b, created)
	st.writeBytes = b.Len()
	if err != nil {
		b.Close()
	} else {
		err = w.commitChunk(b, created, st)
	}
	if err != nil {
		for i := range out {
			if out[i] != nil && !kept[i] {
				_ = w.RemoveMemoryFile(out[i])
				out[i], errs[i] = nil, err
			}
		}
	}
}

// commitChunk is commit for a chunk of RememberBatch: it writes b
// durably, then hands the derived indexes' update (the search documents'
// analysis, the embeddings) to st.derived, which runs it while the next
// chunk is anchored, so that the two share the cores (a +80,000 batch
// used 1.4 of 2 cores with them one after the other; docs/benchmarks.md,
// session 17). The full-text and the vector update run beside each
// other (derivedQueue): the chunk's derived update takes the longer of
// the two instead of their sum (docs/benchmarks.md, session 20). The
// anchor place table is updated before it returns. The derived indexes
// are opened once, before the first chunk's write, as commit opens them.
func (w *Workspace) commitChunk(b *index.MemoryBatch, created []*Memory, st *batchState) error {
	if !st.derivedOpen {
		if w.claimTraining() {
			w.openSearchIndex() // the vector lane opens the vector index
		} else {
			w.openDerived()
		}
		st.derivedOpen = true
	}
	gen, err := w.writeBatch(b)
	if err != nil {
		return err
	}
	w.places.update(created, nil, gen)
	compact, reserve := st.bulk.add(len(created))
	// The vector lane may lag several chunks behind (the first update
	// waits for the embedder's training): it holds the chunk's vector
	// documents, a tenth of its memories' size (their anchors' snapshots
	// and context lines), not the memories.
	vdocs := vectorDocs(created)
	st.derived.start(func() {
		w.indexText(created, nil, gen)
	}, func() {
		w.indexVectorDocs(vdocs, nil, gen)
		if compact {
			w.compactBulkVectors(reserve)
		}
	})
	return nil
}

// derivedQueue runs the derived-index updates of a batch's chunks in
// order, each update on a goroutine of its own beside the batch's next
// chunks, in two lanes (the full-text index's and the vector index's,
// which share no state): each update starts after its lane's update of
// the chunk before, and a lane may lag up to derivedLag chunks behind
// the batch, so that a slow update of one lane (the vector index's first
// one, which waits for the embedder's training) holds neither the other
// lane nor the batch's next chunks. The zero value is ready; the batch
// waits for the last updates before it returns (wait), and before a
// chunk whose requests search the derived indexes (a near-duplicate
// check), so that they see every earlier chunk.
type derivedQueue struct {
	// lanes[l] holds the done channels of lane l's updates not yet
	// waited for, oldest first; each is closed when its update ends.
	lanes [2][]chan struct{}
}

// derivedLag is how many chunks' updates a lane of a derivedQueue may
// have pending: the batch's next chunk waits for the oldest beyond it,
// which bounds what the pending updates hold (their chunks' memories).
const derivedLag = 8

// start queues text and vectors, each on a new goroutine that runs it
// after its lane's previous update, once each lane has fewer than
// derivedLag updates pending.
func (q *derivedQueue) start(text, vectors func()) {
	for lane, update := range [2]func(){text, vectors} {
		pending := q.lanes[lane]
		for len(pending) >= derivedLag {
			<-pending[0]
			pending = pending[1:]
		}
		var prev chan struct{}
		if len(pending) > 0 {
			prev = pending[len(pending)-1]
		}
		done := make(chan struct{})
		q.lanes[lane] = append(pending, done)
		go func() {
			defer close(done)
			if prev != nil {
				<-prev
			}
			update()
		}()
	}
}

// wait returns when the queued updates, if any, have ended.
func (q *derivedQueue) wait() {
	for lane, pending := range q.lanes {
		for _, done := range pending {
			<-done
		}
		q.lanes[lane] = nil
	}
}

// preparse parses, on GOMAXPROCS goroutines, the files named by the
// requests of a chunk placed by lines on disk that are not cached yet and
// that their stored index record cannot anchor (needsParse), and caches
// them (trees dropped) for newMemory. Files that cannot be parsed are left
// for newMemory to report.
func (w *Workspace) preparse(reqs []RememberRequest, st *batchState) {
	seen := map[string]bool{}
	var todo []string
	for _, req := range reqs {
		if req.Path == "" || req.Content != nil || req.Symbol != "" {
			continue
		}
		rel, err := st.relPath(w, req.Path)
		if err != nil || seen[rel] || st.files[rel] != nil || !w.needsParse(req, rel, st) {
			continue
		}
		seen[rel] = true
		todo = append(todo, rel)
	}
	if len(todo) < 2 {
		return
	}
	parsed := make([]*index.File, len(todo))
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := 0; k < min(runtime.GOMAXPROCS(0), len(todo)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(todo) {
					return
				}
				if f, err := w.parseFile(todo[i]); err == nil {
					f.DropTree()
					parsed[i] = f
				}
			}
		}()
	}
	wg.Wait()
	for i, f := range parsed {
		if f != nil {
			st.files[todo[i]] = f
		}
	}
}

// stampBlobs sets the commit and branch of each memory and the commit and
// blob of each of its anchors, asking git once for the blobs of the paths
// not seen by an earlier chunk.
func (w *Workspace) stampBlobs(ms []*Memory, st *batchState) {
	var missing []string
	if st.commit != "" {
		for _, m := range ms {
			for _, a := range m.Anchors {
				if _, ok := st.blobs[a.Path]; !ok {
					st.blobs[a.Path] = ""
					missing = append(missing, a.Path)
				}
			}
		}
	}
	for p, blob := range gitBlobs(w.Root, missing) {
		st.blobs[p] = blob
	}
	for _, m := range ms {
		m.GitCommit, m.GitBranch = st.commit, st.branch
		for j := range m.Anchors {
			a := &m.Anchors[j]
			a.GitCommit = st.commit
			if st.commit != "" {
				a.GitBlob = st.blobs[a.Path]
			}
		}
	}
}

// gitBlobs returns the blob id of each of paths (workspace-relative) in
// the commit checked out at root, from `git ls-tree` runs of up to 500
// paths (literal pathspecs, NUL-terminated output). Paths that are not
// tracked blobs are left out; git failures give what was found so far.
func gitBlobs(root string, paths []string) map[string]string {
	out := map[string]string{}
	for len(paths) > 0 {
		n := min(len(paths), 500)
		args := append([]string{"-C", root, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", "HEAD", "--"}, paths[:n]...)
		paths = paths[n:]
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
		data, err := cmd.Output()
		if err != nil {
			return out
		}
		for _, rec := range bytes.Split(data, []byte{0}) {
			// "<mode> SP <type> SP <object> TAB <path>"
			meta, p, ok := strings.Cut(string(rec), "\t")
			f := strings.Fields(meta)
			if ok && len(f) == 3 && f[1] == "blob" {
				out[p] = f[2]
			}
		}
	}
	return out
}

// batchGeneration starts caching the index generation (Store.Generation)
// that new anchors record (Anchor.ResolvedGen, fillSnapshot) for the
// chunks of a RememberBatch: rememberChunk reads it once per chunk
// (noteBatchGeneration) instead of one Pebble read per anchor. The
// returned function ends the caching. w.writeMu is held.
func (w *Workspace) batchGeneration() func() {
	return func() { w.batchGen.Store(0) }
}

// noteBatchGeneration reads the index generation for the anchors of the
// next chunk (batchGeneration); on a read error nothing is cached and
// each anchor reads it (and fails) as without the cache.
func (w *Workspace) noteBatchGeneration() {
	w.batchGen.Store(0)
	if gen, err := w.Store.Generation(); err == nil {
		w.batchGen.Store(gen + 1)
	}
}

// resolvedGeneration returns the index generation a new anchor records:
// the chunk's cached one during a RememberBatch, else the store's.
func (w *Workspace) resolvedGeneration() (uint64, error) {
	if g := w.batchGen.Load(); g != 0 {
		return g - 1, nil
	}
	return w.Store.Generation()
}

// keptBatchFiles are the files built from stored index records by one
// RememberBatch call (batchState.stored, nil answers left out) and the
// index generation they were built at (Options.KeepBatchFiles).
type keptBatchFiles struct {
	gen   uint64
	files map[string]*index.File
}

// carryFiles gives st the files kept by the previous RememberBatch call
// when the index generation has not moved since (an index run may have
// changed any record); storedFile still compares each with the disk.
// w.writeMu is held.
func (w *Workspace) carryFiles(st *batchState) {
	gen, err := w.Store.Generation()
	st.gen, st.genOK = gen, err == nil
	kept := w.keptFiles
	w.keptFiles = nil
	if kept != nil && st.genOK && kept.gen == gen {
		st.carried = kept.files
	}
}

// keepFiles keeps the stored and carried files of st for the next RememberBatch call
// when the workspace keeps them (Options.KeepBatchFiles) and the index
// generation is still the one the batch started at, for at most
// Options.KeepBatchFilesFor when that is set. w.writeMu is held.
func (w *Workspace) keepFiles(st *batchState) {
	if !w.keepBatchFiles || !st.genOK {
		return
	}
	if gen, err := w.Store.Generation(); err != nil || gen != st.gen {
		return
	}
	// The files carried into this call's last window and not used again
	// are kept too: a call of bulkWindow requests ends with a renew, which
	// moves every stored file to carried, and kept nothing before.
	files := make(map[string]*index.File, len(st.stored)+len(st.carried))
	for p, f := range st.carried {
		files[p] = f
	}
	for p, f := range st.stored {
		if f != nil {
			files[p] = f
		}
	}
	kept := &keptBatchFiles{gen: st.gen, files: files}
	w.keptFiles = kept
	if w.keepFor <= 0 {
		return
	}
	if w.keptTimer != nil {
		w.keptTimer.Stop()
	}
	w.keptTimer = time.AfterFunc(w.keepFor, func() {
		w.writeMu.Lock()
		defer w.writeMu.Unlock()
		if w.keptFiles == kept {
			w.keptFiles = nil
		}
	})
}
