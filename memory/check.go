package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory/confidence"
)

// checkState is the stored state of one file with anchors at the end of
// the last CheckViews (index keyspace k): its content hash then ("" when
// missing), whether an anchor in it was stale, and the index generation.
// A memory write that touches the path deletes it (index.MemoryBatch).
type checkState struct {
	Hash  string `json:"hash"`
	Stale bool   `json:"stale,omitempty"`
	Gen   uint64 `json:"gen"`
}

// checkStateOf returns the check state of path p among states (as
// index.Store.CheckStates gives them); ok is false when p has none or
// it does not decode (the path is then checked again).
func checkStateOf(states map[string][]byte, p string) (cs checkState, ok bool) {
	data, ok := states[p]
	return cs, ok && json.Unmarshal(data, &cs) == nil
}

// putSummary adds m's summary (its View, what check prints) to b.
func putSummary(b *index.MemoryBatch, m *Memory) error {
	data, err := encodeSummary(ViewOf(m))
	if err != nil {
		return err
	}
	return b.PutSummary(m.ID, data)
}

// ensureSummaries writes the summary of every memory when the store's
// summaries are not current (a store from a gloss without them, or
// written by one since) or in an older format (JSON): one listing, one
// batch. w.writeMu is held.
func (w *Workspace) ensureSummaries() error {
	if ok, err := w.summariesReady(); err != nil || ok {
		return err
	}
	mems, err := w.List()
	if err != nil {
		return err
	}
	b := w.Store.NewMemoryBatch()
	for _, m := range mems {
		if err := putSummary(b, m); err != nil {
			b.Close()
			return err
		}
	}
	b.MarkSummariesCurrent()
	if err := b.SetSummaryFormat(summaryFormat); err != nil {
		b.Close()
		return err
	}
	return w.commit(b, nil, nil)
}

// summariesReady reports whether the store holds a current summary of
// every memory in this gloss's format (summaryFormat), which
// ReadSummaries can read.
func (w *Workspace) summariesReady() (bool, error) {
	ok, err := w.Store.SummariesCurrent()
	if err != nil || !ok {
		return false, err
	}
	format, err := w.Store.SummaryFormat()
	return err == nil && format == summaryFormat, err
}

// CheckViews is Check for callers that print the result: it re-resolves
// only the anchors of files whose content changed since the last check
// (or that memory writes touched since, or with stale anchors when the
// index changed), decoding only the memories anchored there, and returns
// every memory as its stored summary (Views, in place order) rather than
// decoded (Memories is nil; Updated counts the memories it re-resolved
// and wrote, 1,000 per batch: resolveChanged). Its cost with
// nothing changed is a rescan of the tree plus one read of the summaries
// (which also tells the memory-file sync which memories are project
// scope), the check states and the anchor paths.
func (w *Workspace) CheckViews(ctx context.Context) (CheckResult, error) {
	start := time.Now()
	res, err := w.CheckSummaries(ctx)
	if err != nil {
		return res, err
	}
	set := res.Summaries
	res.Summaries = nil
	if res.Views, err = set.Views(); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// CheckSummaries is CheckViews with the summaries read but not decoded:
// res.Summaries holds them in place order (SummarySet; Each decodes one
// at a time for a caller that prints them as they come, as `gloss
// check` does) and res.Views is nil. res.Elapsed ends before any decode.
func (w *Workspace) CheckSummaries(ctx context.Context) (CheckResult, error) {
	return w.checkStates(ctx, index.RunOptions{}, true)
}

// checkStates is CheckSummaries with the options o of its indexing run;
// without views it returns no Summaries and reads no summary beyond its
// scope (storedProject), as the daemon's warm-up check (Pool.Check) and
// the language server's checks do.
func (w *Workspace) checkStates(ctx context.Context, o index.RunOptions, withViews bool) (CheckResult, error) {
	start := time.Now()
	var res CheckResult
	pre, err := w.indexForCheck(ctx, o, &res)
	if err != nil {
		return res, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.ensureSummaries(); err != nil {
		return res, err
	}
	if !withViews {
		if res.Files, err = w.syncFilesStored(ctx, "", w.storedProject); err == nil {
			res.Files.addEarlier(pre)
			err = w.resolveChanged(ctx, &res)
		}
		res.Elapsed = time.Since(start)
		return res, err
	}
	set, err := w.ReadSummaries()
	if err != nil {
		return res, err
	}
	stored := func() (map[string]*Memory, error) { return w.storedBySet(set) }
	if res.Files, err = w.syncFilesStored(ctx, "", stored); err != nil {
		return res, err
	}
	res.Files.addEarlier(pre)
	if err := w.resolveChanged(ctx, &res); err != nil {
		return res, err
	}
	if res.Files.Changed() || len(res.Files.Written) > 0 || res.Updated > 0 {
		if set, err = w.ReadSummaries(); err != nil { // the sync or the check wrote memories
			return res, err
		}
	}
	res.Summaries, res.Elapsed = set, time.Since(start)
	return res, nil
}

// resolveChanged re-resolves the anchors of the paths checkPaths selects
// and stores the new statuses, checkChunk memories per batch, and the
// paths' check states with the last batch, recording the work in res
// (res.Memories stays nil: res.Updated counts the memories written). A
// crash between two batches leaves the paths without their check states,
// so the next check visits them again (the anchors written already no
// longer need it: resolver.needs). One batch for all of them held every
// re-resolved memory, its record and the Pebble batch at once: 1.7 GB for
// 51,000 memories in 400 changed files of a 100,000-memory store
// (docs/benchmarks.md, session 20). w.writeMu is held.
func (w *Workspace) resolveChanged(ctx context.Context, res *CheckResult) error {
	r, err := w.newResolver()
	if err != nil {
		return err
	}
	defer r.release()
	paths, err := w.checkPaths(r)
	if err != nil {
		return err
	}
	b := w.Store.NewMemoryBatch()
	seen := map[string]bool{}
	staleAt := map[string]bool{}
	var pending, derived []*Memory // written to b, not committed yet; those whose documents changed
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			b.Close()
			return err
		}
		ids, err := w.idsAtPath(p)
		if err != nil {
			b.Close()
			return err
		}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			m, err := w.get(id)
			if err != nil {
				b.Close()
				return err
			}
			changed, docs, err := w.resolveMemory(b, r, m, res)
			if err != nil {
				b.Close()
				return err
			}
			if changed {
				pending = append(pending, m)
				res.Updated++
			}
			if docs {
				derived = append(derived, m)
			}
			for _, a := range m.Anchors {
				if IsStale(a.Status) {
					staleAt[a.Path] = true
				}
			}
			if len(pending) >= checkChunk {
				err := w.commitDocs(b, pending, derived, nil)
				b, pending, derived = w.Store.NewMemoryBatch(), pending[:0], derived[:0]
				if err != nil {
					b.Close()
					return err
				}
			}
		}
	}
	// Before the first complete index run (generation 0) an anchor may be
	// left undecided (resolve): no check state, so the next check looks
	// at its path again.
	if r.gen > 0 {
		if err := w.putCheckStates(b, r, paths, staleAt); err != nil {
			b.Close()
			return err
		}
	}
	if len(paths) == 0 {
		b.Close()
		return nil
	}
	return w.commitDocs(b, pending, derived, nil)
}

// checkChunk is how many re-resolved memories a check writes per batch
// (resolveChanged): as many as a chunk of remember --batch.
const checkChunk = RememberChunk

// resolveMemory re-resolves the anchors of m that need it (resolver.needs)
// and adds m to b when any did, reporting whether it did, and whether its
// search and vector documents changed with it (docsChanged).
func (w *Workspace) resolveMemory(b *index.MemoryBatch, r *resolver, m *Memory, res *CheckResult) (changed, docs bool, err error) {
	var old *Memory
	for i := range m.Anchors {
		a := &m.Anchors[i]
		if !r.needs(a) {
			continue
		}
		if old == nil {
			old = m.clone()
		}
		*a = r.resolve(*a)
		res.Resolved++
	}
	if old == nil {
		return false, false, nil
	}
	return true, docsChanged(old, m), w.putMemory(b, old, m)
}

// docsChanged reports whether a re-resolution of m (old before it) changed
// what its search and vector documents are made of (searchDoc,
// vectorText): an anchor's symbol, path or snapshot. A resolution moves
// anchors and sets statuses but keeps snapshots (as written), so most
// re-resolved memories keep their documents, and a check need not update
// the derived indexes for them.
func docsChanged(old, m *Memory) bool {
	if len(old.Anchors) != len(m.Anchors) {
		return true
	}
	for i, a := range m.Anchors {
		o := old.Anchors[i]
		if a.Symbol != o.Symbol || a.Path != o.Path || a.Snapshot != o.Snapshot {
			return true
		}
	}
	return false
}

// checkPaths returns the anchor paths a check must look at: those with no
// check state (never checked, or touched by a memory write since), whose
// content hash differs from their state's, or whose state had stale
// anchors when the index has changed since.
func (w *Workspace) checkPaths(r *resolver) ([]string, error) {
	all, err := w.Store.AnchorPaths()
	if err != nil {
		return nil, err
	}
	states, err := w.Store.CheckStates()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range all {
		if cs, ok := checkStateOf(states, p); !ok || cs.Hash != r.fileHash(p) || (cs.Stale && cs.Gen < r.gen) {
			out = append(out, p)
		}
	}
	return out, nil
}

// putCheckStates adds to b the check state of each of paths after all
// memories anchored there were resolved: the current content hash and
// whether an anchor in the path is stale (staleAt).
func (w *Workspace) putCheckStates(b *index.MemoryBatch, r *resolver, paths []string, staleAt map[string]bool) error {
	for _, p := range paths {
		if err := putCheckState(b, p, checkState{Hash: r.fileHash(p), Stale: staleAt[p], Gen: r.gen}); err != nil {
			return err
		}
	}
	return nil
}

// putCheckState adds to b the check state cs of the workspace-relative
// path (JSON, as checkPaths reads it).
func putCheckState(b *index.MemoryBatch, path string, cs checkState) error {
	data, err := json.Marshal(cs)
	if err != nil {
		return err
	}
	return b.PutCheckState(path, data)
}

// Summaries returns the stored summary of every memory, ordered by place
// (SortViewsByPlace), with its confidence computed now (View.Lifecycle).
// It fails on an unreadable store or summary. It is ReadSummaries then
// SummarySet.Views.
func (w *Workspace) Summaries() ([]View, error) {
	set, err := w.ReadSummaries()
	if err != nil {
		return nil, err
	}
	return set.Views()
}

// SummarySet is the stored summary of every memory of a workspace, read
// by one scan of the store (ReadSummaries) and ordered by place, not yet
// decoded: Views decodes all of them into one slice, Each one at a time
// into a few reused views, so a caller that prints them (`gloss check`)
// holds the summaries' bytes but not 100,000 decoded views (456 bytes
// each, plus their anchors). A set is read once: after Views or Each it
// is empty.
type SummarySet struct {
	chunks []*summaryChunk
	dest   []int32        // place-order position of each summary, in scan order
	places []summaryPlace // the place of each summary, in scan order
	now    time.Time
	// to are the relations by target (Incoming) when the set was read:
	// a summary is not rewritten when another memory comes to supersede
	// its memory, so each view's superseded_by is taken from them, as
	// Annotate does for List (check printed none before).
	to map[string][]Relation
}

// summaryChunk holds viewBlock summaries of a SummarySet in scan (id)
// order: their ids, the end of each in data, and their places.
type summaryChunk struct {
	ids    []string
	ends   []int
	data   []byte
	places []summaryPlace
	first  int // index of the chunk's first summary in scan order
	err    error
}

// span returns the bytes of the chunk's i-th summary, and the same bytes
// as a string (a substring of the chunk's whole data, which nothing
// writes after the scan) for decodeSummaryInto's strings.
func (c *summaryChunk) span(i int) ([]byte, string) {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	whole := unsafe.String(unsafe.SliceData(c.data), len(c.data))
	return c.data[start:c.ends[i]], whole[start:c.ends[i]]
}

// ListEach calls fn with the view of every memory as List and ViewOf
// give it (superseded_by from the relation index, access statistics up
// to date, confidence as of now), in place order (SortViewsByPlace),
// decoded from the stored summaries one at a time (SummarySet.Each), so
// that a listing of 100,000 memories never holds them all decoded. The
// view is valid only during the call; fn's first error stops the
// listing and is returned. n is the number of memories. ok is false,
// and fn is not called, when the store's summaries are not current or
// in an older format (a store written by a gloss without them): the
// caller lists the records then (List), as a read-only listing does not
// write summaries.
func (w *Workspace) ListEach(fn func(*View) error) (n int, ok bool, err error) {
	return w.listEach(fn, false)
}

// listEach is ListEach; with order set it also keeps the place order it
// read as w's pageIndex (ListPage), when no memory was written during the
// scan. Whole listings (`gloss list`, the api's stream) leave it: only
// pages read from it.
func (w *Workspace) listEach(fn func(*View) error, order bool) (n int, ok bool, err error) {
	if ready, err := w.summariesReady(); err != nil || !ready {
		return 0, false, err
	}
	stats, err := w.Accesses()
	if err != nil {
		stats = nil // as List: the stored statistics stand
	}
	var gen uint64
	if order {
		var err error
		gen, err = w.Store.MemoryGeneration()
		order = err == nil
	}
	set, err := w.ReadSummaries()
	if err != nil {
		return 0, false, err
	}
	if order {
		if now, err := w.Store.MemoryGeneration(); err == nil && now == gen {
			// No memory written during the scan: ListPage's next pages
			// read from this order (pageIndex).
			w.pages.Store(&pageIndex{gen: gen, keys: set.cursors()})
		}
	}
	n = set.Len()
	return n, true, set.Each(func(v *View) error {
		ApplyAccessView(v, stats)
		return fn(v)
	})
}

// Len returns the number of summaries in s.
func (s *SummarySet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.dest)
}

// ReadSummaries reads the stored summary of every memory and orders them
// by place (SortViewsByPlace) without decoding them; confidences are
// computed at this time when they are decoded. It fails on an unreadable
// store or a summary whose place cannot be read.
//
// The scan of the store (one goroutine) copies each viewBlock summaries
// into a chunk, whose place keys (summaryPlaceOf: the first anchor's path
// and line, read without decoding the rest) the other cores read as the
// scan goes on. Once every place is known the order is computed
// (placeOrder). Views then decodes each summary on all cores straight
// into its final slot, Each in place order into reused views; their
// strings are substrings of one string per chunk (decodeSummaryInto).
// Before, 100,000 summaries were decoded into blocks in scan order and
// then moved into place: the move of 100,000 views and the per-field
// strings were a third of a nothing-changed `gloss check` (pprof,
// docs/benchmarks.md "Scale (#12)").
func (w *Workspace) ReadSummaries() (*SummarySet, error) {
	w.summaryScans.Add(1)
	to, err := w.Incoming()
	if err != nil {
		return nil, err
	}
	set := &SummarySet{now: w.now(), to: to}
	place := func(c *summaryChunk) {
		c.places = make([]summaryPlace, len(c.ids))
		start := 0
		for i, id := range c.ids {
			pl, err := summaryPlaceOf(c.data[start:c.ends[i]])
			if err != nil {
				c.err = fmt.Errorf("corrupt summary of memory %s: %w", id, err)
				return
			}
			c.places[i] = pl
			start = c.ends[i]
		}
	}
	workers := max(1, runtime.GOMAXPROCS(0)-1)
	work := make(chan *summaryChunk, 4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				place(c)
			}
		}()
	}
	var chunks []*summaryChunk
	n := 0
	// Each chunk's bytes are allocated once at about the size of the one
	// before: grown by append from nothing, their copies and fresh pages
	// were a quarter of a `gloss check` at 100,000 memories (pprof).
	size := 256 << 10
	newChunk := func() *summaryChunk {
		if k := len(chunks); k > 0 {
			size = len(chunks[k-1].data) + len(chunks[k-1].data)/16
		}
		return &summaryChunk{ids: make([]string, 0, viewBlock), ends: make([]int, 0, viewBlock), data: make([]byte, 0, size), first: n}
	}
	cur := newChunk()
	err = w.Store.Summaries(func(id string, data []byte) error {
		cur.ids = append(cur.ids, id)
		cur.data = append(cur.data, data...)
		cur.ends = append(cur.ends, len(cur.data))
		n++
		if len(cur.ids) == viewBlock {
			chunks = append(chunks, cur)
			work <- cur
			cur = newChunk()
		}
		return nil
	})
	if len(cur.ids) > 0 {
		chunks = append(chunks, cur)
		work <- cur
	}
	close(work)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return set, nil
	}
	places := make([]summaryPlace, 0, n)
	for _, c := range chunks {
		if c.err != nil {
			return nil, c.err
		}
		places = append(places, c.places...)
		c.places = nil
	}
	set.chunks, set.dest, set.places = chunks, placeOrder(places), places
	return set, nil
}

// cursors returns the position (ListCursor) of every summary of s in
// place order, without decoding them: ids and places as the scan read
// them, each distinct path one string (the places' paths alias the
// chunks' bytes, which the cursors must not keep alive).
func (s *SummarySet) cursors() []ListCursor {
	keys := make([]ListCursor, len(s.dest))
	paths := map[string]string{}
	for _, c := range s.chunks {
		for i, id := range c.ids {
			j := c.first + i
			k := &keys[s.dest[j]]
			k.ID = id
			if pl := &s.places[j]; pl.anchored {
				p, ok := paths[string(pl.path)]
				if !ok {
					p = string(pl.path)
					paths[p] = p
				}
				k.Anchored, k.Path, k.Line = true, p, pl.line
			}
		}
	}
	return keys
}

// Views decodes every summary of s into one slice in place order, on all
// cores (nil for an empty set). It fails on a summary that cannot be
// decoded.
func (s *SummarySet) Views() ([]View, error) {
	chunks, dest, now, to := s.chunks, s.dest, s.now, s.to
	s.chunks, s.dest, s.places = nil, nil, nil
	if len(dest) == 0 {
		return nil, nil
	}
	out := make([]View, len(dest))
	decode := func(c *summaryChunk) {
		for i, id := range c.ids {
			v := &out[dest[c.first+i]]
			data, str := c.span(i)
			if err := decodeSummaryInto(v, data, str); err != nil {
				c.err = fmt.Errorf("corrupt summary of memory %s: %w", id, err)
				return
			}
			settleSummaryView(v, now, to)
		}
	}
	work := make(chan *summaryChunk, len(chunks))
	for _, c := range chunks {
		work <- c
	}
	close(work)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				decode(c)
			}
		}()
	}
	wg.Wait()
	for _, c := range chunks {
		if c.err != nil {
			return nil, c.err
		}
	}
	return out, nil
}

// eachBlock is the number of views Each decodes ahead in one block; it
// keeps eachBlocks blocks.
const (
	eachBlock  = 256
	eachBlocks = 3
)

// Each calls fn with every summary of s decoded, in place order, and
// stops at fn's first error, which it returns; it fails on a summary that
// cannot be decoded. The view passed to fn is valid only during the call
// (its memory is reused for a later summary). A second goroutine decodes
// the next blocks of eachBlock views while fn runs.
func (s *SummarySet) Each(fn func(*View) error) error {
	chunks, dest, now, to := s.chunks, s.dest, s.now, s.to
	s.chunks, s.dest, s.places = nil, nil, nil
	n := len(dest)
	if n == 0 {
		return nil
	}
	src := make([]int32, n) // scan index of the summary at each place
	for j, k := range dest {
		src[k] = int32(j)
	}
	type block struct {
		views []View
		n     int
		err   error
	}
	free := make(chan *block, eachBlocks)
	full := make(chan *block, eachBlocks)
	for range eachBlocks {
		free <- &block{views: make([]View, eachBlock)}
	}
	stop := make(chan struct{})
	go func() {
		defer close(full)
		for pos := 0; pos < n; pos += eachBlock {
			var b *block
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.n = min(eachBlock, n-pos)
			for i := range b.n {
				j := int(src[pos+i])
				c := chunks[j/viewBlock]
				data, str := c.span(j % viewBlock)
				v := &b.views[i]
				if err := decodeSummaryReuse(v, data, str); err != nil {
					b.n, b.err = i, fmt.Errorf("corrupt summary of memory %s: %w", c.ids[j%viewBlock], err)
					break
				}
				settleSummaryView(v, now, to)
			}
			full <- b
			if b.err != nil {
				return
			}
		}
	}()
	var err error
	for b := range full {
		if err != nil {
			continue // draining after fn failed
		}
		for i := range b.n {
			if err = fn(&b.views[i]); err != nil {
				break
			}
		}
		if err == nil {
			err = b.err
		}
		if err != nil {
			close(stop)
			continue
		}
		free <- b
	}
	return err
}

// settleSummaryView gives v, decoded from a stored summary, what the
// summary does not store: its confidence as of now and the memories that
// supersede it, from the relations by target to (Incoming).
func settleSummaryView(v *View, now time.Time, to map[string][]Relation) {
	v.Confidence = round2(confidence.Of(v.Lifecycle(), now).Value)
	v.SupersededBy = supersededBy(to, v.ID)
}

// decodeSummaryReuse is decodeSummaryInto into a view v that may hold an
// earlier summary: v is cleared, keeping the memory of its anchors and
// tags for a binary summary.
func decodeSummaryReuse(v *View, data []byte, whole string) error {
	anchors, tags := v.Anchors[:0], v.Tags[:0]
	*v = View{}
	if len(data) > 0 && data[0] != '{' {
		v.Anchors, v.Tags = anchors, tags
	}
	return decodeSummaryInto(v, data, whole)
}

// viewBlock is the number of summaries in one chunk of Summaries.
const viewBlock = 1024

// placeOrder returns, for each of places (in scan order), its index in
// the order SortViewsByPlace gives the views: by the first anchor's path
// (bytewise) and start line, memories without anchors last, ties in scan
// order. Each place becomes one integer key (the rank of its path among
// the sorted distinct paths, then its line), so the sort compares
// integers, not paths.
func placeOrder(places []summaryPlace) []int32 {
	ranks := map[string]uint64{}
	for i := range places {
		if pl := &places[i]; pl.anchored {
			if _, ok := ranks[string(pl.path)]; !ok {
				ranks[string(pl.path)] = 0
			}
		}
	}
	names := make([]string, 0, len(ranks))
	for p := range ranks {
		names = append(names, p)
	}
	slices.Sort(names)
	for r, p := range names {
		ranks[p] = uint64(r)
	}
	type placeKey struct {
		key uint64 // path rank << 32 | line
		i   int32
	}
	keys := make([]placeKey, len(places))
	for i := range places {
		pl := &places[i]
		k := uint64(math.MaxUint64)
		if pl.anchored {
			k = ranks[string(pl.path)]<<32 | uint64(int64(pl.line)+1<<31)&(1<<32-1)
		}
		keys[i] = placeKey{k, int32(i)}
	}
	slices.SortFunc(keys, func(a, b placeKey) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	dest := make([]int32, len(places))
	for k, pk := range keys {
		dest[pk.i] = int32(k)
	}
	return dest
}

// SortViewsByPlace orders views as SortByPlace orders memories of one
// workspace (listed in id order): by the first anchor's path and line,
// memories without anchors last, then by id (ComparePlace). It sorts
// indexes and moves each view once, so 100,000 views cost what their
// comparisons do.
func SortViewsByPlace(vs []View) {
	idx := make([]int32, len(vs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(i, j int32) int { return ComparePlace(&vs[i], &vs[j]) })
	sorted := make([]View, len(vs))
	for k, i := range idx {
		sorted[k] = vs[i]
	}
	copy(vs, sorted)
}

// compareViewPlace is the order of SortViewsByPlace.
func compareViewPlace(a, b *View) int {
	if len(a.Anchors) == 0 || len(b.Anchors) == 0 {
		return len(b.Anchors) - len(a.Anchors) // anchored first
	}
	if c := strings.Compare(a.Anchors[0].Path, b.Anchors[0].Path); c != 0 {
		return c
	}
	return a.Anchors[0].StartLine - b.Anchors[0].StartLine
}

// storedBySummary fills stored (storedForSync) with the project memories
// only, found by their summaries: a whole sync needs no personal memory
// but those whose id has a memory file, which readMemFile reports by
// name and syncFilesListed looks up (storedForFiles). w.writeMu is held.
func (w *Workspace) storedBySummary(stored map[string]*Memory) (map[string]*Memory, error) {
	views, err := w.Summaries()
	if err != nil {
		return nil, err
	}
	s, err := w.storedByViews(views)
	for id, m := range s {
		stored[id] = m
	}
	return stored, err
}

// storedByViews returns the project memories among views (summaries),
// decoded, by id: what a whole sync compares the memory files with.
// w.writeMu is held.
func (w *Workspace) storedByViews(views []View) (map[string]*Memory, error) {
	stored := map[string]*Memory{}
	for i := range views {
		if views[i].Scope != ScopeProject {
			continue
		}
		m, err := w.get(views[i].ID)
		if err != nil {
			return nil, err
		}
		stored[m.ID] = m
	}
	return stored, nil
}

// storedBySet is storedByViews over the summaries of set, reading only
// each summary's scope (summaryScope) and decoding the project memories
// alone. w.writeMu is held.
func (w *Workspace) storedBySet(set *SummarySet) (map[string]*Memory, error) {
	stored := map[string]*Memory{}
	for _, c := range set.chunks {
		for i, id := range c.ids {
			data, _ := c.span(i)
			scope, err := summaryScope(data)
			if err != nil {
				return nil, fmt.Errorf("corrupt summary of memory %s: %w", id, err)
			}
			if scope != ScopeProject {
				continue
			}
			m, err := w.get(id)
			if err != nil {
				return nil, err
			}
			stored[m.ID] = m
		}
	}
	return stored, nil
}

// storedProject is storedByViews over the stored summaries, reading
// only each summary's scope (summaryScope) and decoding the project
// memories alone. w.writeMu is held.
func (w *Workspace) storedProject() (map[string]*Memory, error) {
	var ids []string
	err := w.Store.Summaries(func(id string, data []byte) error {
		scope, err := summaryScope(data)
		if err != nil {
			return fmt.Errorf("corrupt summary of memory %s: %w", id, err)
		}
		if scope == ScopeProject {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	stored := make(map[string]*Memory, len(ids))
	for _, id := range ids {
		m, err := w.get(id)
		if err != nil {
			return nil, err
		}
		stored[id] = m
	}
	return stored, nil
}

// storedForFiles adds to stored the memory of each file id it lacks, when
// the store has one (a personal memory, which storedBySummary leaves
// out). w.writeMu is held; it returns store read errors.
func (w *Workspace) storedForFiles(files map[string]*memFile, stored map[string]*Memory) error {
	for id := range files {
		if stored[id] != nil {
			continue
		}
		m, err := w.get(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		stored[id] = m
	}
	return nil
}

// CheckResult is what Check found.
type CheckResult struct {
	// Memories are all memories with their current anchor statuses
	// (Check); nil for the checks of changed files only (CheckViews,
	// CheckSummaries, CheckStates), whose Updated counts the memories
	// they re-resolved and wrote.
	Memories []*Memory
	// Views are all memories as stored summaries, in place order
	// (CheckViews only).
	Views []View
	// Summaries are all memories as stored summaries not yet decoded, in
	// place order (CheckSummaries only).
	Summaries *SummarySet
	// Index is the indexing run Check started with.
	Index index.Stats
	// Resolved counts anchors re-resolved; Updated memories written back.
	Resolved int
	Updated  int
	Elapsed  time.Duration
	// Files is what synchronizing the memory files found (SyncMemoryFiles).
	Files SyncResult
}

// AnchorsChanged reports whether the check stored new anchor places or
// statuses (anchors re-resolved or memories written back) or loaded or
// hid memories from their files, which is when diagnostics and code lenses
// shown elsewhere are out of date.
func (r CheckResult) AnchorsChanged() bool {
	return r.Updated > 0 || r.Resolved > 0 || r.Files.Changed()
}

// Check rescans the working tree (catching edits, git checkout, pull and
// rebase), re-resolves every anchor whose file or index changed since its
// last resolution, stores the new statuses and places durably, and returns
// all memories. Memories are never dropped: an anchor that cannot be found
// keeps its last known place with status deleted.
func (w *Workspace) Check(ctx context.Context) (CheckResult, error) {
	return w.CheckWith(ctx, index.RunOptions{})
}

// CheckWith is Check with the options o of its indexing run
// (index.RunOptions: o.Progress is called with the files parsed of those
// to parse, as the language server's start-up check reports $/progress).
func (w *Workspace) CheckWith(ctx context.Context, o index.RunOptions) (CheckResult, error) {
	start := time.Now()
	var res CheckResult
	pre, err := w.indexForCheck(ctx, o, &res)
	if err != nil {
		return res, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	mems, err := w.List()
	if err != nil {
		return res, err
	}
	if res.Files, err = w.syncFilesListed(ctx, "", mems); err != nil {
		return res, err
	}
	res.Files.addEarlier(pre)
	if res.Files.Changed() || len(res.Files.Written) > 0 {
		if mems, err = w.List(); err != nil { // the files changed the store
			return res, err
		}
	}
	r, err := w.newResolver()
	if err != nil {
		return res, err
	}
	defer r.release()
	b := w.Store.NewMemoryBatch()
	var updated []*Memory
	for _, m := range mems {
		if err := ctx.Err(); err != nil {
			b.Close()
			return res, err
		}
		changed, _, err := w.resolveMemory(b, r, m, &res)
		if err != nil {
			b.Close()
			return res, err
		}
		if changed {
			updated = append(updated, m)
		}
	}
	if len(updated) > 0 {
		if err := w.commit(b, updated, nil); err != nil {
			return res, err
		}
	} else {
		b.Close()
	}
	res.Memories, res.Updated, res.Elapsed = mems, len(updated), time.Since(start)
	return res, nil
}

// syncBeforeFirstIndex loads the memory files (SyncMemoryFiles) of a
// store that was never indexed (a fresh clone's first start), before the
// index run: their memories then answer hovers while the rest of the
// repository is parsed, and their files are parsed first (Index). Other
// stores are synchronized after the run, as before; the result is empty.
func (w *Workspace) syncBeforeFirstIndex(ctx context.Context) (SyncResult, error) {
	gen, err := w.Store.Generation()
	if err != nil || gen != 0 {
		return SyncResult{}, err
	}
	if w.checkProject() != nil || w.writable() != nil {
		return SyncResult{}, nil // Index reports it
	}
	return w.SyncMemoryFiles(ctx)
}

// indexForCheck is the start Check and CheckViews share: the memory files
// of a never-indexed store are loaded first (syncBeforeFirstIndex), then
// the working tree is indexed (Index with the run options o, recorded in
// res.Index). It returns what that early synchronization did, for
// SyncResult.addEarlier once the check's own synchronization has run.
func (w *Workspace) indexForCheck(ctx context.Context, o index.RunOptions, res *CheckResult) (SyncResult, error) {
	pre, err := w.syncBeforeFirstIndex(ctx)
	if err != nil {
		return pre, err
	}
	res.Index, err = w.index(ctx, o, false)
	return pre, err
}

// keepCheckStates adds to b, for each path the new memories mems are
// anchored in, the check state a check would store after resolving them,
// in place of the deletion their Put made (index.MemoryBatch.Put): so the
// first check after `remember --batch` does not re-resolve every anchor
// the ingest has just resolved. A path gets a state only when all of its
// anchors among mems were resolved against one content (Anchor.FileHash)
// and every memory stored there before the batch was checked against that
// same content (its check state has that hash) or none is stored there
// yet; otherwise its state stays deleted and the next check re-resolves
// it, as before. Stale anchors keep the state stale, with the lowest
// generation they were resolved at, so a later index change re-resolves
// them (checkPaths). w.writeMu is held; it returns store read errors.
func (w *Workspace) keepCheckStates(b *index.MemoryBatch, mems []*Memory) error {
	type pathState struct {
		cs checkState
		ok bool
	}
	states := map[string]*pathState{}
	var order []string
	for _, m := range mems {
		for _, a := range m.Anchors {
			ps := states[a.Path]
			if ps == nil {
				ps = &pathState{cs: checkState{Hash: a.FileHash, Gen: math.MaxUint64}, ok: a.FileHash != ""}
				states[a.Path] = ps
				order = append(order, a.Path)
			}
			if a.FileHash != ps.cs.Hash {
				ps.ok = false
			}
			if IsStale(a.Status) {
				ps.cs.Stale, ps.cs.Gen = true, min(ps.cs.Gen, a.ResolvedGen)
			}
		}
	}
	gen, err := w.Store.Generation()
	if err != nil {
		return err
	}
	var want []string
	for _, p := range order {
		if states[p].ok {
			want = append(want, p)
		}
	}
	stored, err := w.Store.CheckStatesOf(want)
	if err != nil {
		return err
	}
	for _, p := range order {
		ps := states[p]
		if !ps.ok {
			continue
		}
		if data := stored[p]; data != nil {
			var old checkState
			if json.Unmarshal(data, &old) != nil || old.Hash != ps.cs.Hash {
				continue
			}
			if old.Stale {
				ps.cs.Stale, ps.cs.Gen = true, min(ps.cs.Gen, old.Gen)
			}
		} else if has, err := w.Store.HasAnchorsAt(p); err != nil {
			return err
		} else if has {
			continue // stored memories there were never checked
		}
		if !ps.cs.Stale {
			ps.cs.Gen = gen
		}
		if err := putCheckState(b, p, ps.cs); err != nil {
			return err
		}
	}
	return nil
}
