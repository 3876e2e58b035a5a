package memory

import (
	"errors"
	"fmt"
	"sort"
)

// Memories selected through their stored summaries: the commands that
// look at every memory to list, count or judge a few (review, prune,
// the language server's diagnostics and symbols, gloss.list) read the
// summaries (a few hundred bytes each, binary) instead of decoding every
// record (JSON with snapshots and tokens: 100,000 took 4.5–6 CPU-s and
// about 450 MB), then read the records of the memories they keep.

// eachSummary calls fn with the id and the decoded stored summary of
// every memory, in id order (index.Store.Summaries; decodeSummary copies
// the strings, so fn may keep the view). A summary that does not decode
// stops it with an error naming the memory; fn's first error stops it and
// is returned.
func (w *Workspace) eachSummary(fn func(id string, v View) error) error {
	return w.Store.Summaries(func(id string, data []byte) error {
		v, err := decodeSummary(data)
		if err != nil {
			return fmt.Errorf("corrupt summary of memory %s: %w", id, err)
		}
		return fn(id, v)
	})
}

// RecordViews returns the view of every memory decoded from its record
// (List), annotated (Annotate: superseded_by), with its access statistics
// applied (the stored ones when they cannot be read), in place order
// (SortByPlace on List's id order: ComparePlace's order): what a listing
// gives when ListViews cannot answer from the summaries.
func (w *Workspace) RecordViews() ([]View, error) {
	ms, err := w.List()
	if err != nil {
		return nil, err
	}
	_ = w.Annotate(ms...)
	if stats, err := w.Accesses(); err == nil {
		ApplyAccess(ms, stats)
	}
	SortByPlace(ms)
	return Views(ms), nil
}

// ListViews returns the view of every memory as List and ViewOf give it
// (superseded_by from the relation index, access statistics up to date,
// confidence as of now), in place order (SortViewsByPlace), decoded from
// the stored summaries (Summaries) rather than the records: what the
// gloss.list command answers. ok is false, and nothing is read, when the
// summaries are not current or in an older format: the caller lists the
// records then (List).
func (w *Workspace) ListViews() (views []View, ok bool, err error) {
	if ready, err := w.summariesReady(); err != nil || !ready {
		return nil, false, err
	}
	stats, err := w.Accesses()
	if err != nil {
		stats = nil // as List: the stored statistics stand
	}
	if views, err = w.Summaries(); err != nil {
		return nil, false, err
	}
	for i := range views {
		ApplyAccessView(&views[i], stats)
	}
	return views, true, nil
}

// StaleMemories returns, in id order, every memory with a stale anchor
// (Memory.Stale: changed, signature_changed or deleted) as stored, with
// its access statistics applied: what the language server publishes
// diagnostics from after each change of the store. Only the memories of
// the anchor paths whose check state says stale, or that have none, are
// read: a check stores with each path's state whether an anchor there is
// stale, and every memory write deletes the states of its anchors' paths
// (index.MemoryBatch.Put), so a stale anchor is never under a state that
// says otherwise. Reading every record took 4.5 CPU-s and 450 MB per
// change of a 100,000-memory store, every summary 0.6 CPU-s
// (docs/benchmarks.md, session 20).
func (w *Workspace) StaleMemories() ([]*Memory, error) {
	paths, err := w.Store.AnchorPaths()
	if err != nil {
		return nil, err
	}
	states, err := w.Store.CheckStates()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, p := range paths {
		if cs, ok := checkStateOf(states, p); ok && !cs.Stale {
			continue
		}
		at, err := w.idsAtPath(p)
		if err != nil {
			return nil, err
		}
		for _, id := range at {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	mems, err := w.getKept(ids, (*Memory).Stale)
	if err != nil || len(mems) == 0 {
		return mems, err
	}
	stats, err := w.Accesses()
	if err != nil {
		return nil, err
	}
	ApplyAccess(mems, stats)
	return mems, nil
}

// RecentMemories returns the n most recently updated memories (UpdatedAt,
// to the second, latest first; ties in id order) as stored, or all of
// them when n < 0: what the language server lists for an empty
// workspace/symbol query. With current summaries their update times are
// read from the summaries and only the n records are read; otherwise
// every record is (List). It fails on an unreadable store.
func (w *Workspace) RecentMemories(n int) ([]*Memory, error) {
	type recent struct {
		id string
		at int64
		m  *Memory // the record, when every record was read
	}
	var all []recent
	if w.summariesRankable() {
		err := w.eachSummary(func(id string, v View) error {
			all = append(all, recent{id: id, at: v.UpdatedAt.Unix()})
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		mems, err := w.List()
		if err != nil {
			return nil, err
		}
		for _, m := range mems {
			all = append(all, recent{id: m.ID, at: m.UpdatedAt.Unix(), m: m})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at > all[j].at })
	if n >= 0 && len(all) > n {
		all = all[:n]
	}
	if len(all) > 0 && all[0].m != nil { // every record was read
		out := make([]*Memory, len(all))
		for i, r := range all {
			out[i] = r.m
		}
		return out, nil
	}
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.id
	}
	return w.getKept(ids, nil)
}

// selectMemories returns, in id order, every memory with its access
// statistics applied (Accesses, ApplyAccess) for which keep is true: what
// Review and Prune judge. When the store's summaries are current
// (summariesRankable), keep first judges each memory as its summary
// describes it (memoryOfView: the lifecycle fields, anchor statuses,
// relations and source keep reads, the confidence computed from them),
// and only the records of those it keeps are read and judged again; a
// memory whose record is gone meanwhile is left out. Otherwise every
// record is read (List). Decoding 100,000 records took `gloss review`
// 6.7 s and 440 MB on prometheus (docs/benchmarks.md, session 20).
func (w *Workspace) selectMemories(keep func(*Memory) bool) ([]*Memory, error) {
	stats, err := w.Accesses()
	if err != nil {
		return nil, err
	}
	judge := func(m *Memory) bool {
		ApplyAccess([]*Memory{m}, stats)
		return keep(m)
	}
	if !w.summariesRankable() {
		mems, err := w.List()
		if err != nil {
			return nil, err
		}
		var out []*Memory
		for _, m := range mems {
			if judge(m) {
				out = append(out, m)
			}
		}
		return out, nil
	}
	var ids []string
	err = w.eachSummary(func(id string, v View) error {
		m := memoryOfView(v)
		w.lifecycle(m)
		if judge(m) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w.getKept(ids, judge)
}

// getKept reads the records of ids (Workspace.get), leaving out those
// forgotten since the ids were read, and returns, in the order of ids,
// those keep accepts (all when keep is nil); nil when none is. It fails
// on an unreadable store or record.
func (w *Workspace) getKept(ids []string, keep func(*Memory) bool) ([]*Memory, error) {
	var out []*Memory
	for _, id := range ids {
		m, err := w.get(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if keep == nil || keep(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// eachDocMemories calls fn with every memory, in id order, in chunks of
// at most size (reused: fn must not keep the slice), with what its
// vector document (vectorText) and the built-in embedder's training
// (trainingUnits) read of it: type, title, body, tags, the anchors'
// symbols and paths. They come from the stored summaries when those are
// current (memoryOfView: no snapshots, so not for searchDoc), else from
// the records (List). Decoding the 100,000 records twice was 13 of the
// 33 CPU-s of a daemon's warm-up that retrains the embedder after a batch
// (docs/benchmarks.md, session 20); holding all 100,000 memories at once
// besides the documents made of them was most of the re-embedding's
// peak (session 21). fn's error ends the scan and is returned.
func (w *Workspace) eachDocMemories(size int, fn func([]*Memory) error) error {
	if !w.summariesRankable() {
		mems, err := w.List()
		if err != nil {
			return err
		}
		for lo := 0; lo < len(mems); lo += size {
			if err := fn(mems[lo:min(lo+size, len(mems))]); err != nil {
				return err
			}
		}
		return nil
	}
	chunk := make([]*Memory, 0, size)
	var fnErr error
	err := w.eachSummary(func(_ string, v View) error {
		chunk = append(chunk, memoryOfView(v))
		if len(chunk) == size {
			fnErr = fn(chunk)
			clear(chunk)
			chunk = chunk[:0]
		}
		return fnErr
	})
	if err == nil && len(chunk) > 0 {
		fnErr = fn(chunk)
	}
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("list memories in %s: %w", w.Store.Dir(), err) // as List says it
	}
	return nil
}

// docMemoryChunk is the chunk size of eachDocMemories' callers: enough
// memories for every core's share of a chunk's documents (docsOf).
const docMemoryChunk = 4096
