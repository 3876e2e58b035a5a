// Package wspool holds the engine workspaces (memory.Workspace) open in
// one process and shares them between the sessions of a daemon or an LSP
// server: it opens a workspace for its first session and closes it after
// its last, broadcasts store changes between sessions, and runs the
// daemon's warm-up check. It knows nothing of protocols; DESIGN.md
// "Packages" (daemon: "the shared workspace pool").
package wspool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// Pool is the engine workspaces (memory.Workspace, one Pebble store
// each) open in one process, shared by every lsp.Server given it through
// lsp.Options.Pool: the sessions of a daemon. A workspace is opened when
// the first session adds its folder and closed when the last one leaves.
//
// It also carries store changes between sessions: a session subscribes
// to a workspace with a callback; when another session remembers,
// updates, verifies or forgets a memory, or a check finds changed anchors,
// it calls Changed and every other subscriber's callback runs (the LSP
// server republishes diagnostics and refreshes code lenses).
//
// A session only ever reaches the workspaces of its own folders: requests
// name memories by id or documents by URI, and both are looked up in the
// session's folders only (project isolation).
type Pool struct {
	opts memory.Options

	mu       sync.Mutex
	released *sync.Cond                  // signalled when a session releases a workspace
	open     map[string]*sharedWorkspace // by Workspace.Root
	opening  map[string]chan struct{}    // roots being opened; closed when done
	closed   bool
}

type sharedWorkspace struct {
	w        *memory.Workspace
	sessions map[any]func()
	refs     int
	own      bool // opened by Open: one reference is the set's own
}

// New returns an empty pool; opts is passed to memory.Open for every
// workspace.
func New(opts memory.Options) *Pool {
	p := &Pool{opts: opts, open: map[string]*sharedWorkspace{}, opening: map[string]chan struct{}{}}
	p.released = sync.NewCond(&p.mu)
	return p
}

// ErrClosed is returned by sessions that start after Close.
var ErrClosed = errors.New("gloss: the workspaces are closed (the daemon is shutting down)")

// Acquire returns the open workspace of root (absolute, symlinks
// resolved), opening it for the first session, and counts one reference.
// No lock is held while the store opens (which may wait for another
// process's store lock, index.LockWait): sessions of other workspaces go
// on meanwhile, and a second session of the same root waits for that open
// and shares its workspace.
func (p *Pool) Acquire(root string, warn func(error)) (*memory.Workspace, error) {
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		if sw := p.open[root]; sw != nil {
			sw.refs++
			p.mu.Unlock()
			return sw.w, nil
		}
		c := p.opening[root]
		if c == nil {
			break
		}
		p.mu.Unlock()
		<-c // the other open finished (or failed): look again
		p.mu.Lock()
	}
	done := make(chan struct{})
	p.opening[root] = done
	opts := p.opts
	p.mu.Unlock()
	if opts.Warn == nil {
		opts.Warn = warn
	}
	w, err := memory.Open(root, opts)
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.opening, root)
	close(done)
	if err != nil {
		return nil, err
	}
	if p.closed {
		_ = w.Close()
		return nil, ErrClosed
	}
	if sw := p.open[w.Root]; sw != nil {
		// root was not canonical: keep one entry per real root.
		_ = w.Close()
		sw.refs++
		return sw.w, nil
	}
	p.open[w.Root] = &sharedWorkspace{w: w, sessions: map[any]func(){}, refs: 1}
	return w, nil
}

// Subscribe registers fn to run when a session other than session
// changes the store of the open workspace root (see Changed). fn runs on
// the caller of Changed and must not block.
func (p *Pool) Subscribe(session any, root string, fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sw := p.open[root]; sw != nil {
		sw.sessions[session] = fn
	}
}

// Unsubscribe stops change notifications to session for root.
func (p *Pool) Unsubscribe(session any, root string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sw := p.open[root]; sw != nil {
		delete(sw.sessions, session)
	}
}

// Release drops one reference to root's workspace and closes it after the
// last one.
func (p *Pool) Release(root string) error {
	p.mu.Lock()
	sw := p.open[root]
	if sw == nil {
		p.mu.Unlock()
		return nil
	}
	sw.refs--
	p.released.Broadcast()
	if sw.refs > 0 || p.closed {
		p.mu.Unlock()
		return nil
	}
	delete(p.open, root)
	p.mu.Unlock()
	return sw.w.Close()
}

// Changed tells every session subscribed to root other than from (nil:
// all of them) that the store changed.
func (p *Pool) Changed(root string, from any) {
	p.mu.Lock()
	var fns []func()
	if sw := p.open[root]; sw != nil {
		for s, fn := range sw.sessions {
			if s != from {
				fns = append(fns, fn)
			}
		}
	}
	p.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Len returns the number of open workspaces.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.open)
}

// closeWait bounds how long Close waits for sessions to release their
// workspaces; their parses are interrupted first, so they release them in
// milliseconds unless a session is stuck.
const closeWait = 5 * time.Second

// Interrupt starts the shutdown: sessions can no longer open folders and
// every open workspace's parses end at once (memory.Workspace.Interrupt), so that
// sessions finish their background work and release their workspaces
// quickly. Close (which calls it) then closes them.
func (p *Pool) Interrupt() {
	p.mu.Lock()
	p.closed = true
	ws := make([]*memory.Workspace, 0, len(p.open))
	for _, sw := range p.open {
		ws = append(ws, sw.w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		w.Interrupt()
	}
}

// Close closes every open workspace. New sessions cannot open folders from
// then on; running parses are interrupted (Interrupt) and sessions still
// running (whose connections the caller has closed) are waited for, up to
// closeWait, to finish their background work and release their
// workspaces. It returns the first error of memory.Workspace.Close.
func (p *Pool) Close() error {
	p.Interrupt()
	p.mu.Lock()
	deadline := time.Now().Add(closeWait)
	timer := time.AfterFunc(closeWait, func() {
		p.mu.Lock()
		p.released.Broadcast()
		p.mu.Unlock()
	})
	defer timer.Stop()
	for p.inUse() && time.Now().Before(deadline) {
		p.released.Wait()
	}
	open := p.open
	p.open = map[string]*sharedWorkspace{}
	p.mu.Unlock()
	var first error
	for root, sw := range open {
		if err := sw.w.Close(); err != nil && first == nil {
			first = fmt.Errorf("close %s: %w", root, err)
		}
	}
	return first
}

// Open opens root's workspace (absolute, symlinks resolved) and holds it
// open until Close, whether or not a session uses it: the daemon's own
// workspace. Its search index is opened (rebuilt from the store when
// missing, corrupt or outdated) at once. It returns memory.Open's error or
// the error of rebuilding the search index.
func (p *Pool) Open(root string) error {
	w, err := p.Acquire(root, nil)
	if err != nil {
		return err
	}
	// Derived indexes are rebuilt from Pebble now, not at the first search.
	if err := w.OpenSearch(); err != nil {
		_ = p.Release(w.Root)
		return fmt.Errorf("search index of %s: %w", w.Root, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if sw := p.open[w.Root]; sw != nil {
		if sw.own {
			sw.refs-- // already held
		}
		sw.own = true
	}
	return nil
}

// Check runs memory.Workspace.CheckStates (CheckViews without its views)
// on root's open workspace (indexing the working tree and re-resolving
// the anchors of files changed since the last check) and tells the
// sessions that have it open when anchors changed. It fails when root is
// not open. CheckStates, not Check: Check decodes every memory record (at
// 100,000 memories 5 of the 15 CPU-s of a daemon's start and first 300
// queries, issue #15); this reads the scope of each binary summary only.
// Then it warms the workspace's place table for the graph ranker
// (WarmPlaces), the store's definition table
// (index.Store.WarmDefinitions), the code ranker's in-memory BM25 index
// (WarmCode) and its in-memory BM25 index for the text ranker
// (WarmText), and does the retraining of the built-in embedder that
// writes and checks deferred (RetrainDeferred), or the re-embedding for a
// changed embedder (ReembedChanged), and last opens the vector index and
// warms its embedder's tables (WarmEmbedder) and its float32 rows
// (WarmVectorRows).
func (p *Pool) Check(ctx context.Context, root string) error {
	p.mu.Lock()
	sw := p.open[root]
	p.mu.Unlock()
	if sw == nil {
		return fmt.Errorf("workspace %s is not open", root)
	}
	res, err := sw.w.CheckStates(ctx)
	if err != nil {
		return err
	}
	if err := sw.w.WarmPlaces(); err != nil {
		return err
	}
	if err := sw.w.Store.WarmDefinitions(); err != nil {
		return err
	}
	if err := sw.w.WarmCode(ctx); err != nil {
		return err
	}
	if err := sw.w.WarmText(ctx); err != nil {
		return err
	}
	if res.AnchorsChanged() { // before the retraining: diagnostics need no vectors
		p.Changed(root, nil)
	}
	// Deferred by writes and checks; at 100,000 memories it re-embeds
	// every memory (tens of CPU-seconds), so it comes last.
	if err := sw.w.RetrainDeferred(ctx); err != nil {
		return err
	}
	if err := sw.w.ReembedChanged(ctx); err != nil {
		return err
	}
	// Last, with the embedder retrained or re-selected: the tables
	// the first searches would build (WarmEmbedder), and the vector
	// rows they would fault in and check (WarmVectorRows).
	if err := sw.w.WarmEmbedder(ctx); err != nil {
		return err
	}
	return sw.w.WarmVectorRows(ctx)
}

// inUse reports whether a session still holds a workspace; p.mu is held.
func (p *Pool) inUse() bool {
	for _, sw := range p.open {
		n := sw.refs
		if sw.own {
			n--
		}
		if n > 0 {
			return true
		}
	}
	return false
}
