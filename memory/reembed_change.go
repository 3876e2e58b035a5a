package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
)

// vectorsOwnerFile is the file, in a vectors directory, that names the
// embedder whose vectors the directory holds (vectorsOwner). It is
// written when an index is opened for the configured embedder and into
// a re-embedded index before the swap, and read at opening to find a
// change of the configured embedder.
const vectorsOwnerFile = "embedder.json"

// vectorsOwner is the content of vectorsOwnerFile.
type vectorsOwner struct {
	// Spec is the embedder selection, canonical (specString).
	Spec string `json:"spec"`
	// Model is the embedder's model id (embed.Embedder.Model).
	Model string `json:"model"`
}

// embedderChange is a change of the configured embedder found at the
// opening of the vector index: the directory holds the vectors of From,
// and every memory must be re-embedded with To (ReembedChanged, beside
// the index in use, reembedBeside). Until the swap, vector search is
// answered by From's vectors with From's embedder (OldModel) when it
// can be built, else the vector ranker is skipped (OldModel "").
type embedderChange struct {
	From, To string     // canonical selections (specString)
	ToSpec   embed.Spec // the configured embedder
	OldModel string     // model id of the vectors serving searches; "" when skipped
}

// ReembedRetryMin and ReembedRetryMax bound the pause (doubling from the
// first to the second) between attempts of a background re-embedding for
// a changed remote embedder whose server fails (down, HTTP 5xx,
// timeouts): the re-embedding retries until it succeeds or the workspace
// closes, reporting the error in ReembedStatus.Error meanwhile.
var (
	ReembedRetryMin = time.Second
	ReembedRetryMax = time.Minute
)

// ReembedForegroundGiveUp bounds how long the foreground re-embedding
// of IndexWith (gloss index) retries a failing remote embedder: once its
// server has failed without a success in between for at least this long
// (with the pauses of ReembedRetryMin..Max: attempts after 1, 2, 4, 8
// and 16 s, so about 31 s plus the requests' own time, each at most
// embed.RequestTimeout), the re-embedding stops with a
// *VectorsPendingError. The daemon's background re-embedding
// (ReembedChanged) never gives up.
var ReembedForegroundGiveUp = 30 * time.Second

// VectorsPendingError is returned (wrapped) by IndexWith when the
// foreground re-embedding for a changed remote embedder gave up
// (ReembedForegroundGiveUp): the files and the full-text index are up to
// date and no memory is lost, but the vectors of Pending memories (of
// Total) are not made with Model yet; searches keep the old vectors or
// skip the vector ranker (full text and symbol graph) until the next
// gloss index or the daemon's background re-embedding succeeds. Rows
// embedded before the failure are kept for that next run.
type VectorsPendingError struct {
	Model          string // the new embedder's model id (embed.Embedder.Model)
	Pending, Total int    // memories not yet embedded with Model, of all
	Err            error  // the server's last failure
}

// Error implements error.
func (e *VectorsPendingError) Error() string {
	return fmt.Sprintf("vectors not updated: %d of %d memories wait for %s: %v", e.Pending, e.Total, e.Model, e.Err)
}

// Unwrap returns the server's last failure.
func (e *VectorsPendingError) Unwrap() error { return e.Err }

// reembedChunk is the number of memories a re-embedding for a remote
// embedder embeds and appends to the new index's log at a time
// (index.Vectors.AppendContext, one request of 64 texts within
// index.UpdateTimeout or until the re-embedding's context ends): a server failure or a crash then loses at most
// one chunk, and the next attempt embeds only the memories the new index
// lacks.
const reembedChunk = 64

// specString returns the canonical form of an embedder selection, as
// stored in vectorsOwnerFile: "builtin", "none", "model2vec:" + the
// absolute directory, or KIND:MODEL[@URL] for remote embedders.
func specString(s embed.Spec) string {
	switch s.Kind {
	case embed.KindModel2Vec:
		if d, err := filepath.Abs(s.Dir); err == nil {
			return s.Kind + ":" + d
		}
		return s.Kind + ":" + s.Dir
	case embed.KindOllama, embed.KindOpenAI:
		out := s.Kind + ":" + s.Model
		if s.URL != "" {
			out += "@" + s.URL
		}
		return out
	}
	return s.Kind
}

// loadVectorsOwner returns the owner file of the workspace's vectors
// directory and whether it names an embedder. Searches ask for it on
// every query (FusionProfile, pendingChange), so the file's last reading
// is kept (vectorState.owner) with the file's stat and reused while a
// stat finds the same file (os.SameFile: device and inode on Unix),
// modification time and size: a write of this process (noteVectorsOwner,
// a re-embedding's directory swap) or of another one replaces the file by
// a rename, so its inode changes and the next call reads it again.
func (w *Workspace) loadVectorsOwner() (vectorsOwner, bool) {
	path := w.builtinPath(vectorsOwnerFile)
	fi, err := os.Stat(path)
	if err != nil {
		return vectorsOwner{}, false
	}
	if c := w.vecs.owner.Load(); c != nil && os.SameFile(c.fi, fi) && c.fi.ModTime().Equal(fi.ModTime()) && c.fi.Size() == fi.Size() {
		return c.o, c.ok
	}
	var o vectorsOwner
	data, err := os.ReadFile(path)
	ok := err == nil && json.Unmarshal(data, &o) == nil && o.Spec != ""
	if err == nil {
		// fi may be older than data when the file was replaced between
		// the stat and the read: the next stat then differs from fi and
		// reads again, so the pair stays right.
		w.vecs.owner.Store(&ownerReading{fi: fi, o: o, ok: ok})
	}
	return o, ok
}

// ownerReading is a reading of the owner file (loadVectorsOwner): the
// file's stat when read, its content and whether it names an embedder.
type ownerReading struct {
	fi os.FileInfo
	o  vectorsOwner
	ok bool
}

// saveVectorsOwnerIn writes o as the owner file of the vectors directory
// dir (atomically: temporary file, rename).
func saveVectorsOwnerIn(dir string, o vectorsOwner) error {
	return writeJSONAtomic(filepath.Join(dir, vectorsOwnerFile), o)
}

// noteVectorsOwner records in the vectors directory that its vectors are
// e's, selected by spec, unless the file says so already. A failure (a
// read-only home) is ignored: the file only serves to find a change of
// embedder later.
func (w *Workspace) noteVectorsOwner(spec embed.Spec, e embed.Embedder) {
	o := vectorsOwner{Spec: specString(spec), Model: e.Model()}
	if cur, ok := w.loadVectorsOwner(); ok && cur == o {
		return
	}
	_ = saveVectorsOwnerIn(filepath.Join(w.Dir, "vectors"), o)
	w.vecs.owner.Store(nil)
}

// pendingChange returns the selections of the embedder the vectors
// directory holds vectors of (from) and of the configured one (to), and
// whether they differ, from the owner file alone (no embedder is built).
// Without an owner file (an index written before it existed), the
// directory's vectors are taken for the built-in model's when its model
// file is there. The configured embedder "none" is no change.
func (w *Workspace) pendingChange() (from, to vectorsOwner, spec embed.Spec, changed bool) {
	spec, err := w.embedSpec()
	if err != nil || spec.Kind == embed.KindNone {
		return from, to, spec, false
	}
	to = vectorsOwner{Spec: specString(spec)}
	from, ok := w.loadVectorsOwner()
	if !ok {
		if spec.Kind == embed.KindBuiltin {
			return from, to, spec, false
		}
		if _, err := os.Stat(w.builtinPath(builtinModelFile)); err != nil {
			return from, to, spec, false
		}
		from = vectorsOwner{Spec: embed.KindBuiltin}
	}
	return from, to, spec, from.Spec != to.Spec
}

// ownerEmbedder builds the embedder of an owner file's selection without
// training (the built-in model is loaded from the vectors directory) and
// checks its model id against the file's.
func (w *Workspace) ownerEmbedder(o vectorsOwner) (embed.Embedder, error) {
	spec, err := embed.ParseSpec(o.Spec)
	if err != nil {
		return nil, err
	}
	var e embed.Embedder
	switch spec.Kind {
	case embed.KindBuiltin:
		e, err = embed.LoadBuiltin(w.builtinPath(builtinModelFile))
	case embed.KindNone:
		return nil, fmt.Errorf("no embedder")
	default:
		e, err = embed.Open(spec)
	}
	if err != nil {
		return nil, err
	}
	if o.Model != "" && e.Model() != o.Model {
		return nil, fmt.Errorf("embedder %s now has model %s, not %s", o.Spec, e.Model(), o.Model)
	}
	return e, nil
}

// detectChange looks for a change of the configured embedder at the
// opening of the vector index (pendingChange). On one, the old vectors
// are opened with the old embedder (ownerEmbedder) to serve searches
// until the re-embedding's swap, or, when that embedder cannot be built
// or holds no vectors, the vector ranker is skipped; the change is
// recorded (vecs.change), reported through Options.Warn, and true is
// returned. An index written before owner files existed whose rows are
// not the built-in model's is no change here (the opening then rebuilds
// it as before). The caller holds vecs.mu and vecs.idx is nil.
func (w *Workspace) detectChange() bool {
	from, to, spec, changed := w.pendingChange()
	if !changed {
		return false
	}
	_, legacy := w.loadVectorsOwner()
	legacy = !legacy
	old, err := w.ownerEmbedder(from)
	var v *index.Vectors
	if err == nil {
		if v, _, err = index.OpenVectors(filepath.Join(w.Dir, "vectors"), old); err == nil {
			if n, _ := v.Count(); n == 0 {
				_ = v.Close()
				v, err = nil, fmt.Errorf("no vectors of %s", old.Model())
			}
		}
	}
	if v == nil && legacy {
		return false
	}
	if n, cerr := w.Store.MemoryCount(); cerr == nil && n == 0 {
		if v != nil {
			_ = v.Close()
		}
		return false // nothing to re-embed: the opening builds the new (empty) index
	}
	ch := &embedderChange{From: from.Spec, To: to.Spec, ToSpec: spec}
	how := "the vector ranker is skipped"
	if v != nil {
		ch.OldModel = old.Model()
		w.vecs.idx, w.vecs.emb, w.vecs.checked = v, old, true
		how = "searches use the vectors of " + old.Model()
	} else if err != nil {
		how += " (" + err.Error() + ")"
	}
	w.vecs.change.Store(ch)
	w.warn(fmt.Errorf("vectors: the embedder changed from %s to %s; %s until every memory is re-embedded (gloss index, or the daemon in the background)", from.Spec, to.Spec, how))
	return true
}

// VectorsNote says why vector search does not use the configured
// embedder's vectors, for search explanations and gloss status: "" when
// it does; while a change of embedder awaits or runs its re-embedding,
// "re-embedding for MODEL (n/N)" (or "pending", "training") followed by
// which vectors answer meanwhile, and the last error of a failing remote
// embedder. It reads no embedder and no vector file.
func (w *Workspace) VectorsNote() string {
	ch := w.vecs.change.Load()
	if ch == nil {
		from, to, _, changed := w.pendingChange()
		if !changed {
			return ""
		}
		ch = &embedderChange{From: from.Spec, To: to.Spec}
	}
	progress := "pending"
	if st, ok := w.Reembedding(); ok {
		switch {
		case st.Phase == "training":
			progress = "training"
		default:
			progress = fmt.Sprintf("%d/%d", st.Done, st.Total)
		}
		if st.Error != "" {
			progress += ", retrying after: " + st.Error
		}
	}
	serving := "vector ranker skipped"
	if ch.OldModel != "" {
		serving = "searching the vectors of " + ch.OldModel
	} else if w.vecs.change.Load() == nil {
		serving = "vectors of " + ch.From + " until then"
	}
	return fmt.Sprintf("re-embedding for %s (%s): %s", ch.To, progress, serving)
}

// ReembedChanged re-embeds every memory with the configured embedder
// when it differs from the one the vector index was built with (a
// change found at the opening, detectChange): beside the index in use,
// which keeps answering searches with the old model, then swapped in at
// once (reembedBeside; the built-in embedder is trained first,
// retrainBuiltin). The daemon calls it after its warm-up check (in the
// background of its sessions), gloss index in the foreground; progress
// goes to WatchReembed's watchers. For a remote embedder, failures of
// its server are retried with a growing pause (ReembedRetryMin to
// ReembedRetryMax) until ctx ends (IndexWith's foreground run gives up
// after ReembedForegroundGiveUp, reembedChanged). It does nothing without a change or
// when a re-embedding runs already, and returns errors of opening,
// training, embedding (local embedders) or ctx's.
func (w *Workspace) ReembedChanged(ctx context.Context) error {
	return w.reembedChanged(ctx, 0)
}

// reembedChanged is ReembedChanged; a remote embedder's failures are
// retried until they have lasted giveUp (0: until ctx ends), then a
// *VectorsPendingError is returned.
func (w *Workspace) reembedChanged(ctx context.Context, giveUp time.Duration) error {
	if _, err := w.vectorIndex(ctx); err != nil {
		return err
	}
	ch := w.vecs.change.Load()
	if ch == nil {
		return nil
	}
	if ch.ToSpec.Kind == embed.KindBuiltin {
		return w.retrainBuiltin(ctx)
	}
	e, err := embed.Open(ch.ToSpec)
	if err != nil {
		return fmt.Errorf("embedder %s: %w", ch.To, err)
	}
	r := &w.vecs.reembed
	if !r.run.TryLock() {
		return nil
	}
	defer r.run.Unlock()
	owner := vectorsOwner{Spec: ch.To, Model: e.Model()}
	return w.reembedBeside(ctx, e, giveUp, func(dir string) error { return saveVectorsOwnerIn(dir, owner) })
}

// embedAll fills next, the new index of a re-embedding, with docs at
// generation gen. A local embedder embeds them in one RebuildContext;
// a remote one in chunks of reembedChunk appended to next's log, each
// retried after a server failure (ReembedRetryMin..Max, the error
// reported through report) until ctx ends or, with giveUp > 0, failures
// without a success between them have lasted giveUp (a
// *VectorsPendingError), then RebuildContext, which
// reuses every row embedded, writes the base. Rows a crashed attempt
// left in next are reused the same way.
func embedAll(ctx context.Context, next *index.Vectors, docs []index.Doc, gen uint64, giveUp time.Duration, report func(done, total int, err error)) error {
	if !isRemote(next.Embedder()) {
		return next.RebuildContext(ctx, docs, gen)
	}
	pause := ReembedRetryMin
	var failingSince time.Time // zero: the last attempt succeeded
	for i := 0; i < len(docs); {
		j := min(len(docs), i+reembedChunk)
		if err := next.AppendContext(ctx, docs[i:j], nil, gen); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			report(i, len(docs), err)
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if giveUp > 0 && time.Since(failingSince) >= giveUp {
				return &VectorsPendingError{Model: next.Embedder().Model(), Pending: len(docs) - i, Total: len(docs), Err: err}
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(pause):
			}
			pause = min(2*pause, ReembedRetryMax)
			continue
		}
		pause, failingSince = ReembedRetryMin, time.Time{}
		i = j
		report(i, len(docs), nil)
	}
	return next.RebuildContext(ctx, docs, gen)
}
