package memory

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"

	"github.com/gloss-dev/gloss/embed"
)

// builtinTraining is a training of the built-in model started ahead of
// its first use (trainAhead): the result of trainBuiltinModel, ready when
// done is closed; read is closed once it has read the store's memories
// for its corpus (trainingUnits), or ended without. memGen and fileGen
// are the store's memory and index generations read before it read its
// corpus: the model is what training at first use would give only while
// both are unchanged (takeTraining).
type builtinTraining struct {
	done, read      chan struct{}
	cancel          context.CancelFunc
	memGen, fileGen uint64
	// claimed: the batch that started the training let the vector index
	// be opened after its first write (claimTraining), so the memory
	// writes since memGen are the batch's own and do not void the model.
	claimed bool
	b       *embed.Builtin
	state   builtinState
	err     error
}

// trainAhead starts, on another goroutine, the training of the built-in
// model that the first chunk of a RememberBatch on a store without a
// model would otherwise do on its own goroutine when it opens the vector
// index (commit, openDerived; 2.4 CPU-s at 20,000 memories on
// prometheus, docs/benchmarks.md "Scale (#12)"), so that it runs beside
// the chunk's validation and anchoring. It starts nothing unless that
// training is due: the built-in embedder is selected, none is loaded,
// its model file does not exist, and no change of embedder is pending.
// The embedder takes the result (takeTraining) when the store is still
// as it was at the start, which it is up to the batch's first write,
// since w.writeMu is held, or after the batch's own writes once its first
// commit claimed it (claimTraining); the model is then the one training
// at first use before the batch gives. The returned function, called before w.writeMu is
// released, drops a result not taken, cancels the training and waits
// for it, so that no goroutine outlives the batch.
func (w *Workspace) trainAhead() func() {
	w.vecs.mu.Lock()
	defer w.vecs.mu.Unlock()
	if w.vecs.emb != nil || w.vecs.idx != nil || w.vecs.disabled || w.vecs.ahead != nil || w.vecs.change.Load() != nil {
		return func() {}
	}
	if spec, err := w.embedSpec(); err != nil || spec.Kind != embed.KindBuiltin {
		return func() {}
	}
	if _, err := os.Stat(w.builtinPath(builtinModelFile)); !errors.Is(err, fs.ErrNotExist) {
		return func() {} // loaded (or found damaged and retrained) at first use
	}
	if _, _, _, changed := w.pendingChange(); changed {
		return func() {}
	}
	memGen, err := w.Store.MemoryGeneration()
	if err != nil {
		return func() {}
	}
	fileGen, err := w.Store.Generation()
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &builtinTraining{done: make(chan struct{}), read: make(chan struct{}), cancel: cancel, memGen: memGen, fileGen: fileGen}
	w.vecs.ahead = t
	go func() {
		defer close(t.done)
		read := sync.OnceFunc(func() { close(t.read) })
		defer read()
		t.b, t.state, t.err = w.trainBuiltinModel(ctx, read)
	}()
	return func() {
		w.vecs.mu.Lock()
		if w.vecs.ahead == t {
			w.vecs.ahead = nil
		}
		w.vecs.mu.Unlock()
		cancel()
		<-t.done
	}
}

// takeTraining returns the result of the training started by trainAhead,
// waiting for it, and forgets it; ok is false when there is none, or when
// the store's memories or indexed files changed since it started, or
// their generations cannot be read (the caller then trains afresh, as
// without it). When ctx ends first it returns ctx's error (ok true), as
// training under ctx would, and leaves the training for the next call.
// The caller holds vecs.mu.
func (w *Workspace) takeTraining(ctx context.Context) (b *embed.Builtin, s builtinState, ok bool, err error) {
	t := w.vecs.ahead
	if t == nil {
		return nil, builtinState{}, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, builtinState{}, true, err // as TrainBuiltin under a cancelled ctx
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, builtinState{}, true, ctx.Err()
	}
	w.vecs.ahead = nil
	memGen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, builtinState{}, false, nil // met again by the training afresh
	}
	fileGen, err := w.Store.Generation()
	if err != nil || (memGen != t.memGen && !t.claimed) || fileGen != t.fileGen {
		return nil, builtinState{}, false, nil
	}
	return t.b, t.state, true, t.err
}

// claimTraining reports whether a training started ahead by this batch
// (trainAhead) is pending, and if so marks it claimed and waits until it
// has read the store's memories (builtinTraining.read: the first thing
// it reads, milliseconds on a store without memories), so that the
// batch's first write, which follows, is not in its corpus: the model is
// the one trained at first use on the store as it was before the batch,
// whatever the timing (before, the training read the memories after the
// file records, ~0.5 s on sympy, and a first chunk committed sooner put
// its memories in the corpus: another model, in 2 of ~40 first batches).
// The batch's first commit then opens only the full-text index and
// leaves the vector index to its vector lane (commitChunk), whose first
// update opens it with this training's model, as first use before the
// write would have, while the batch goes on with its next chunks.
// Waiting for the whole training at the first commit held a first batch
// on prometheus 1.4 s with one core idle (execution trace,
// docs/benchmarks.md, session 21). The lane's opening finds the index
// behind the store's generation and rebuilds it from the memories
// written so far (embedding them once, as their updates would have:
// those updates then reuse the rows). The caller holds w.writeMu.
func (w *Workspace) claimTraining() bool {
	w.vecs.mu.Lock()
	t := w.vecs.ahead
	if t != nil {
		t.claimed = true
	}
	w.vecs.mu.Unlock()
	if t == nil {
		return false
	}
	<-t.read
	return true
}
