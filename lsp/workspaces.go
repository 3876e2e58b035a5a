package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// Workspaces are the engine workspaces (memory.Workspace, one Pebble store
// each) open in one process, shared by every Server given them through
// Options.Workspaces: the sessions of a daemon. A workspace is opened when
// the first session adds its folder and closed when the last one leaves.
//
// It also carries store changes between sessions: when one session
// remembers, updates, verifies or forgets a memory, or a check finds
// changed anchors, every other session with that workspace open
// republishes its diagnostics and asks its client to refresh code lenses.
//
// A session only ever reaches the workspaces of its own folders: requests
// name memories by id or documents by URI, and both are looked up in the
// session's folders only (project isolation).
type Workspaces struct {
	opts memory.Options

	mu       sync.Mutex
	released *sync.Cond                  // signalled when a session releases a workspace
	open     map[string]*sharedWorkspace // by memory.Workspace.Root
	closed   bool
}

type sharedWorkspace struct {
	w        *memory.Workspace
	sessions map[*Server]*folder
	refs     int
	own      bool // opened by Open: one reference is the set's own
}

// NewWorkspaces returns an empty set; opts is passed to memory.Open for
// every workspace.
func NewWorkspaces(opts memory.Options) *Workspaces {
	p := &Workspaces{opts: opts, open: map[string]*sharedWorkspace{}}
	p.released = sync.NewCond(&p.mu)
	return p
}

// ErrWorkspacesClosed is returned by sessions that start after Close.
var ErrWorkspacesClosed = errors.New("gloss: the workspaces are closed (the daemon is shutting down)")

// acquire returns the open workspace of root (absolute, symlinks
// resolved), opening it for the first session, and counts one reference.
func (p *Workspaces) acquire(root string, warn func(error)) (*memory.Workspace, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrWorkspacesClosed
	}
	if sw := p.open[root]; sw != nil {
		sw.refs++
		return sw.w, nil
	}
	opts := p.opts
	if opts.Warn == nil {
		opts.Warn = warn
	}
	// Opening holds p.mu: two sessions adding the same folder at once must
	// not both open (and lock) the store.
	w, err := memory.Open(root, opts)
	if err != nil {
		return nil, err
	}
	if w.Root != root {
		// root was not canonical: keep one entry per real root.
		if sw := p.open[w.Root]; sw != nil {
			_ = w.Close()
			sw.refs++
			return sw.w, nil
		}
	}
	p.open[w.Root] = &sharedWorkspace{w: w, sessions: map[*Server]*folder{}, refs: 1}
	return w, nil
}

// subscribe registers session s's folder f for change notifications.
func (p *Workspaces) subscribe(s *Server, f *folder) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sw := p.open[f.root]; sw != nil {
		sw.sessions[s] = f
	}
}

// unsubscribe stops change notifications to s for root.
func (p *Workspaces) unsubscribe(s *Server, root string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sw := p.open[root]; sw != nil {
		delete(sw.sessions, s)
	}
}

// release drops one reference to root's workspace and closes it after the
// last one.
func (p *Workspaces) release(root string) error {
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

// changed tells every session other than from that has root open that the
// store changed.
func (p *Workspaces) changed(root string, from *Server) {
	p.mu.Lock()
	var others []*Server
	var folders []*folder
	if sw := p.open[root]; sw != nil {
		for s, f := range sw.sessions {
			if s != from {
				others = append(others, s)
				folders = append(folders, f)
			}
		}
	}
	p.mu.Unlock()
	for i, s := range others {
		s.storeChangedElsewhere(folders[i])
	}
}

// Len returns the number of open workspaces.
func (p *Workspaces) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.open)
}

// closeWait bounds how long Close waits for sessions to release their
// workspaces.
const closeWait = 30 * time.Second

// Close closes every open workspace. New sessions cannot open folders from
// then on; sessions still running (whose connections the caller has
// closed) are waited for, up to 30 s, to finish their background work and
// release their workspaces. It returns the first error of
// memory.Workspace.Close.
func (p *Workspaces) Close() error {
	p.mu.Lock()
	p.closed = true
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
func (p *Workspaces) Open(root string) error {
	w, err := p.acquire(root, nil)
	if err != nil {
		return err
	}
	// Derived indexes are rebuilt from Pebble now, not at the first search.
	if err := w.OpenSearch(); err != nil {
		_ = p.release(w.Root)
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

// Check runs memory.Workspace.Check on root's open workspace (indexing the
// working tree and resolving anchors) and tells the sessions that have it
// open when anchors changed. It fails when root is not open.
func (p *Workspaces) Check(ctx context.Context, root string) error {
	p.mu.Lock()
	sw := p.open[root]
	p.mu.Unlock()
	if sw == nil {
		return fmt.Errorf("workspace %s is not open", root)
	}
	res, err := sw.w.Check(ctx)
	if err != nil {
		return err
	}
	if res.AnchorsChanged() {
		p.changed(root, nil)
	}
	return nil
}

// inUse reports whether a session still holds a workspace; p.mu is held.
func (p *Workspaces) inUse() bool {
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
