package memory

import (
	"sync"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// Access tracking: a hover that shows a memory, a search or context that
// returns it, an MCP or CLI read of it counts as an access. RecordAccess
// only adds to a map in memory (no I/O, so it never slows a hover); the
// counts are added to the store's access keyspace (index.Store.AddAccess,
// one Pebble batch, no fsync) AccessFlushDelay after the first unflushed
// access, at once when AccessFlushMax memories are pending, and when the
// workspace closes. A crash (kill -9, power loss) loses the accesses not
// yet flushed — at most the last AccessFlushDelay or so — which only
// makes a memory look a little less used; never a memory or its text.

// AccessFlushDelay is how long accesses wait in memory before they are
// written.
var AccessFlushDelay = 5 * time.Second

// AccessFlushMax is the number of pending memories that triggers a flush
// without waiting for AccessFlushDelay.
const AccessFlushMax = 4096

// accessLog is a workspace's pending accesses.
type accessLog struct {
	mu      sync.Mutex
	pending map[string]index.AccessStat
	timer   *time.Timer
	closed  bool
	flushMu sync.Mutex // serializes flushes (AddAccess reads, then writes)
}

// RecordAccess counts one access of each memory id at the workspace
// clock's now. It does no I/O; duplicate ids count once per call.
func (w *Workspace) RecordAccess(ids ...string) {
	if len(ids) == 0 {
		return
	}
	now := w.now().UTC()
	l := &w.access
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.pending == nil {
		l.pending = map[string]index.AccessStat{}
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		st := l.pending[id]
		st.Count++
		st.Last = now
		l.pending[id] = st
	}
	switch {
	case len(l.pending) >= AccessFlushMax:
		go w.flushAccessWarn()
	case l.timer == nil:
		l.timer = time.AfterFunc(AccessFlushDelay, w.flushAccessWarn)
	}
}

// flushAccessWarn flushes pending accesses, reporting a failure through
// Options.Warn (the accesses are dropped: they are statistics).
func (w *Workspace) flushAccessWarn() {
	if err := w.FlushAccess(); err != nil {
		w.warn(err)
	}
}

// FlushAccess writes the pending accesses to the store in one batch. On
// a write error the pending accesses are dropped and the error returned.
func (w *Workspace) FlushAccess() error {
	l := &w.access
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	batch := l.pending
	l.pending = nil
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	closed := l.closed
	l.mu.Unlock()
	if closed || len(batch) == 0 {
		return nil
	}
	return w.storeAccess(batch)
}

// closeAccess writes the pending accesses and stops accepting new ones
// (before the store closes): a flush timer that fires later finds the log
// closed and writes nothing.
func (w *Workspace) closeAccess() error {
	l := &w.access
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	batch := l.pending
	l.pending, l.closed = nil, true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.mu.Unlock()
	return w.storeAccess(batch)
}

// pendingAccess returns the unflushed accesses of id.
func (w *Workspace) pendingAccess(id string) index.AccessStat {
	w.access.mu.Lock()
	defer w.access.mu.Unlock()
	return w.access.pending[id]
}

// Accesses returns the access statistics of every memory read at least
// once: stored plus pending.
func (w *Workspace) Accesses() (map[string]index.AccessStat, error) {
	out := map[string]index.AccessStat{}
	err := w.Store.Accesses(func(id string, st index.AccessStat) error {
		out[id] = st
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.access.mu.Lock()
	defer w.access.mu.Unlock()
	for id, p := range w.access.pending {
		out[id] = mergeAccess(out[id], p)
	}
	return out, nil
}

// mergeAccess adds b to a: counts summed, the later time kept.
func mergeAccess(a, b index.AccessStat) index.AccessStat {
	a.Count += b.Count
	if b.Last.After(a.Last) {
		a.Last = b.Last
	}
	return a
}

// WithAccess fills m's AccessCount and LastAccessedAt from the stored and
// pending accesses (one store read). A store error leaves m unchanged.
func (w *Workspace) WithAccess(m *Memory) {
	st, err := w.Store.Access(m.ID)
	if err != nil {
		return
	}
	st = mergeAccess(st, w.pendingAccess(m.ID))
	m.AccessCount, m.LastAccessedAt = int(st.Count), st.Last
}

// ApplyAccess fills the access fields of ms from stats (Accesses).
func ApplyAccess(ms []*Memory, stats map[string]index.AccessStat) {
	for _, m := range ms {
		if st, ok := stats[m.ID]; ok {
			m.AccessCount, m.LastAccessedAt = int(st.Count), st.Last
		}
	}
}

// ApplyAccessView is ApplyAccess for a view (a stored summary's).
func ApplyAccessView(v *View, stats map[string]index.AccessStat) {
	if st, ok := stats[v.ID]; ok {
		v.AccessCount, v.LastAccessedAt = int(st.Count), st.Last
	}
}
