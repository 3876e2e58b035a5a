package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
)

// vectorsNextDir is the directory, beside the vector index's "vectors",
// in which a re-embedding builds the new model's index (its model file,
// state file and vector files) while searches keep using the old one.
// Swapping exchanges the two directories; a directory left by a crash is
// removed by the next re-embedding.
const vectorsNextDir = "vectors.next"

// catchUpUnderLock is the number of memory writes (documents) that a
// re-embedding applies to the new index inside the swap's critical
// section; with more pending, it applies them outside it first.
const catchUpUnderLock = 256

// ReembedStatus is the progress of a re-embedding of the vector index
// with a new model (the built-in embedder's retraining, RetrainDeferred):
// Phase "training" while the new model is learnt from the workspace (Done
// and Total 0), then "embedding" with Done of Total memories embedded
// with Model so far. Searches use the old model until the swap. A
// change of the configured embedder (ReembedChanged) reports the same.
//
// Error is the last failure of a remote embedder's server while a
// re-embedding for a changed embedder retries (ReembedChanged); "" once
// a chunk succeeds again.
type ReembedStatus struct {
	Phase string `json:"phase"`
	Model string `json:"model,omitempty"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Error string `json:"error,omitempty"`
}

// reembedState is the workspace's running re-embedding, if any.
type reembedState struct {
	run sync.Mutex // held by the running re-embedding (TryLock: one at a time)

	mu       sync.Mutex // guards the fields below (never held while calling watchers)
	status   *ReembedStatus
	watchers map[int]func(ReembedStatus, bool)
	nextID   int
}

// pendingWrite is one memory write that landed in the vector index while
// a re-embedding ran: the re-embedding applies it to the new index too.
type pendingWrite struct {
	docs    []index.Doc
	deleted []string
	gen     uint64
}

// Reembedding returns the progress of the running re-embedding of the
// vector index, and false when none runs.
func (w *Workspace) Reembedding() (ReembedStatus, bool) {
	r := &w.vecs.reembed
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == nil {
		return ReembedStatus{}, false
	}
	return *r.status, true
}

// WatchReembed calls f with the progress of every re-embedding of the
// vector index: when it starts and at each batch of 64 memories (running
// true), and once when it ends (running false, with the last status),
// from the re-embedding's goroutine; f must not block. The returned
// function stops the calls.
func (w *Workspace) WatchReembed(f func(st ReembedStatus, running bool)) (stop func()) {
	r := &w.vecs.reembed
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watchers == nil {
		r.watchers = map[int]func(ReembedStatus, bool){}
	}
	id := r.nextID
	r.nextID++
	r.watchers[id] = f
	return func() {
		r.mu.Lock()
		delete(r.watchers, id)
		r.mu.Unlock()
	}
}

// setReembed records st (nil: ended, reporting last) and tells the
// watchers.
func (w *Workspace) setReembed(st *ReembedStatus, last ReembedStatus) {
	r := &w.vecs.reembed
	r.mu.Lock()
	r.status = st
	fs := make([]func(ReembedStatus, bool), 0, len(r.watchers))
	for _, f := range r.watchers {
		fs = append(fs, f)
	}
	r.mu.Unlock()
	if st != nil {
		last = *st
	}
	for _, f := range fs {
		f(last, st != nil)
	}
}

// retrainBuiltin trains a new built-in model and re-embeds every memory
// with it beside the vector index in use (reembedBeside), then swaps the
// model, the vectors and the retraining state in one short critical
// section: searches meanwhile use the old model and its vectors. When
// another retraining of the workspace runs, it returns nil at once (that
// one covers this one's changes). It returns errors of training or
// re-embedding; the old model and index then stay in use, and the
// retraining state is unchanged, so the next Index or RetrainDeferred
// retrains again.
func (w *Workspace) retrainBuiltin(ctx context.Context) error {
	r := &w.vecs.reembed
	if !r.run.TryLock() {
		return nil
	}
	defer r.run.Unlock()
	st := &ReembedStatus{Phase: "training"}
	w.setReembed(st, *st)
	b, state, err := w.trainBuiltinModel(ctx, nil)
	if err != nil {
		w.setReembed(nil, *st)
		return err
	}
	save := func(dir string) error {
		if err := b.Save(filepath.Join(dir, builtinModelFile)); err != nil {
			return err
		}
		if err := saveVectorsOwnerIn(dir, vectorsOwner{Spec: embed.KindBuiltin, Model: b.Model()}); err != nil {
			return err
		}
		return saveBuiltinStateIn(dir, state)
	}
	return w.reembedBeside(ctx, b, 0, save)
}

// reembedBeside builds the vector index of embedder e in vectorsNextDir
// from every stored memory, without holding vecs.mu: searches and writes
// go on with the index in use, and the writes that land meanwhile are
// recorded (indexVectors) and applied to the new index too. Then, under
// vecs.mu, it applies the last recorded writes, calls save (which writes
// e's model and state files into the new directory), exchanges the two
// directories and makes the workspace's embedder e and its index the new
// one (index.Vectors.Replace). Progress goes to the workspace's watchers
// (WatchReembed), the last report when it ends. The new directory is removed on
// failure and the old one after the swap; a crash before the swap leaves
// the old index in use and the new directory to the next re-embedding,
// as does giving up on a remote embedder (giveUp, embedAll's
// *VectorsPendingError), so that the next run reuses the rows embedded.
// The caller holds vecs.reembed.run.
func (w *Workspace) reembedBeside(ctx context.Context, e embed.Embedder, giveUp time.Duration, save func(dir string) error) (err error) {
	dir := filepath.Join(w.Dir, vectorsNextDir)
	next, _, err := index.OpenVectors(dir, e)
	if err != nil {
		return err
	}
	if n, _ := next.Count(); n == 0 {
		// A crashed re-embedding's directory of another model (or none):
		// start afresh. Rows of e's model are kept and reused (embedAll).
		_ = next.Close()
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("vector index: %w", err)
		}
		if next, _, err = index.OpenVectors(dir, e); err != nil {
			return err
		}
	}
	swapped := false
	last := ReembedStatus{Phase: "embedding", Model: e.Model()}
	defer func() {
		w.setReembed(nil, last)
		w.vecs.mu.Lock()
		w.vecs.pending, w.vecs.recording = nil, false
		w.vecs.mu.Unlock()
		if !swapped {
			_ = next.Close()
		}
		var pending *VectorsPendingError
		if errors.As(err, &pending) {
			return // kept for the next run (embedAll reuses its rows)
		}
		if rmErr := os.RemoveAll(dir); rmErr != nil && err == nil {
			w.warn(fmt.Errorf("vector index: remove the replaced index: %w", rmErr))
		}
	}()
	reportErr := func(done, total int, err error) {
		last = ReembedStatus{Phase: "embedding", Model: e.Model(), Done: done, Total: total}
		if err != nil {
			last.Error = err.Error()
		}
		s := last
		w.setReembed(&s, s)
	}
	report := func(done, total int) { reportErr(done, total, nil) }
	next.Progress = report
	w.vecs.mu.Lock()
	w.vecs.recording, w.vecs.pending = true, nil // before the listing below
	w.vecs.mu.Unlock()
	docs, gen, err := w.vectorDocsAt()
	if err != nil {
		return err
	}
	report(0, len(docs))
	if err := embedAll(ctx, next, docs, gen, giveUp, reportErr); err != nil {
		return fmt.Errorf("re-embed with %s: %w", e.Model(), err)
	}
	for round := 0; ; round++ {
		w.vecs.mu.Lock()
		pending := w.vecs.pending
		w.vecs.pending = nil
		if n := pendingDocs(pending); n > catchUpUnderLock && round < 3 {
			w.vecs.mu.Unlock()
			if err := applyPending(ctx, next, pending, &gen); err != nil {
				return err
			}
			continue
		}
		err := applyPending(ctx, next, pending, &gen)
		if err == nil {
			err = w.swapVectors(next, e, dir, save)
		}
		swapped = err == nil
		w.vecs.mu.Unlock()
		return err
	}
}

func pendingDocs(p []pendingWrite) int {
	n := 0
	for _, x := range p {
		n += len(x.docs) + len(x.deleted)
	}
	return n
}

// applyPending applies recorded writes to next, in order, and leaves it
// at the latest generation seen (*gen, updated). Embedding the writes
// (a remote embedder's requests) ends with ctx.
func applyPending(ctx context.Context, next *index.Vectors, pending []pendingWrite, gen *uint64) error {
	for _, p := range pending {
		if err := next.AppendContext(ctx, p.docs, p.deleted, p.gen); err != nil {
			return fmt.Errorf("re-embed the writes made meanwhile: %w", err)
		}
		*gen = max(*gen, p.gen)
	}
	if g, _ := next.Generation(); g != *gen {
		if err := next.Update(nil, nil, *gen); err != nil {
			return err
		}
	}
	return next.CompactLog()
}

// swapVectors makes next, built in dir for embedder e, the workspace's
// vector index: save writes e's files into dir, the directories are
// exchanged (exchangeDirs) and the open index takes next's rows. The
// caller holds vecs.mu.
func (w *Workspace) swapVectors(next *index.Vectors, e embed.Embedder, dir string, save func(string) error) error {
	if save != nil {
		if err := save(dir); err != nil {
			return err
		}
	}
	cur := filepath.Join(w.Dir, "vectors")
	if err := os.MkdirAll(cur, 0o700); err != nil {
		return err
	}
	if err := exchangeDirs(dir, cur); err != nil {
		return fmt.Errorf("vector index: swap in the re-embedded index: %w", err)
	}
	w.vecs.owner.Store(nil) // the swapped-in directory's owner file
	w.vecs.emb = e
	if v := w.vecs.idx; v != nil {
		v.Replace(next) // also the old embedder's index of a change
	} else {
		_ = next.Close() // the next opening reads the swapped-in files with e
	}
	w.vecs.change.Store(nil)
	return nil
}

// recordPending records a memory write for the running re-embedding, if
// any. The caller holds vecs.mu.
func (w *Workspace) recordPending(docs []index.Doc, deleted []string, gen uint64) {
	if w.vecs.recording {
		w.vecs.pending = append(w.vecs.pending, pendingWrite{docs, deleted, gen})
	}
}

// errNoExchange is returned by exchangeDirs where the system cannot
// exchange two directories atomically.
var errNoExchange = errors.New("atomic directory exchange not supported")

// exchangeDirs exchanges the directories a and b: atomically where the
// system can (exchangeAtomic, Linux renameat2 RENAME_EXCHANGE), else by
// three renames through a + ".old" (a crash between them leaves no
// vector index: it is rebuilt from the store, never mixed).
func exchangeDirs(a, b string) error {
	err := exchangeAtomic(a, b)
	if err == nil || !errors.Is(err, errNoExchange) {
		return err
	}
	tmp := a + ".old"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.Rename(b, tmp); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		return err
	}
	return os.Rename(tmp, a)
}
