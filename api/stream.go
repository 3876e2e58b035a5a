package api

import (
	"context"
	"iter"

	"github.com/gloss-dev/gloss/memory"
)

// StreamWindow is how many items of a RememberStream may be read and not
// reported yet beyond the chunk being stored: items of other workspaces
// and items placed by symbol wait in a window of at most this many while
// the stream's items of the current workspace are stored, and files'
// line counts are read again after this many items (a RememberBatchEach
// call of this many items reads each once).
const StreamWindow = 10_000

// RememberStream is RememberBatchEach over a stream of items of any
// length, read as the batch goes: i is the 0-based index of the item in
// the stream. Consecutive items of one workspace are stored by one
// memory.Workspace.RememberStream, a chunk at a time, so a stream of one
// workspace's items is one batch however long it is (the set-up of a
// batch done once, each chunk's derived-index update beside the next
// chunk's anchoring), where RememberBatchEach calls each set up and wait
// for their own. Items of other workspaces and items placed by symbol
// met meanwhile wait, at most StreamWindow of them, and are stored as a
// RememberBatchEach call when the run ends (the window is full, or the
// stream ended); items that cannot be placed are reported as they are
// read. Items are reported in any order, each once; those of a failed
// index run (the returned error) are not. size is the number of items
// items yields when known (room reserved for their vectors), else ≤ 0.
// items runs on the caller's goroutine, some of it with a workspace's
// write lock held: it must not write through e, and should stop when ctx
// is done. each runs with the workspace's write lock held too.
func (e *Engine) RememberStream(ctx context.Context, items iter.Seq[RememberArgs], size int, each func(i int, it BatchItem)) error {
	next, stop := iter.Pull(items)
	defer stop()
	s := &itemStream{e: e, next: next, r: newBatchReport(e, each), pc: &placeCache{}}
	for {
		j, ok := s.pull()
		if !ok {
			return nil
		}
		if j.w == nil { // no run is open: stored now
			if err := s.r.rememberJobs(ctx, []batchJob{j}); err != nil {
				return err
			}
			continue
		}
		if err := s.run(ctx, j, size); err != nil {
			return err
		}
		waiting := s.waiting
		s.waiting = nil
		if err := s.r.rememberJobs(ctx, waiting); err != nil {
			return err
		}
	}
}

// itemStream is the state of a RememberStream: the items' source, the
// items read so far (read), and the placed items waiting for the current
// run to end.
type itemStream struct {
	e       *Engine
	next    func() (RememberArgs, bool)
	r       *batchReport
	pc      *placeCache
	read    int
	waiting []batchJob
}

// pull reads items until one is placed and returns it; items that cannot
// be placed are reported on the way. ok is false at the end of the
// stream.
func (s *itemStream) pull() (batchJob, bool) {
	for {
		it, ok := s.next()
		if !ok {
			return batchJob{}, false
		}
		i := s.read
		s.read++
		if s.read%StreamWindow == 0 {
			s.pc = &placeCache{} // files may have changed: read them again
		}
		req, pl, err := s.e.request(it, s.pc)
		switch {
		case err != nil:
			s.r.each(i, BatchItem{Error: err.Error()})
		case pl == nil:
			return batchJob{i: i, req: req}, true
		default:
			return batchJob{i: i, req: req, w: pl.w}, true
		}
	}
}

// run stores first and the stream's items of first's workspace that
// follow it in one memory.Workspace.RememberStream, until the stream ends
// or StreamWindow items of other places wait (s.waiting). size is the
// whole stream's length when known.
func (s *itemStream) run(ctx context.Context, first batchJob, size int) error {
	w := first.w
	if err := s.r.indexFirst(ctx, w); err != nil {
		return err
	}
	// at[k-base] is the stream index of the run's request k, kept from
	// the first request not reported yet.
	at := []int{first.i}
	base := 0
	reqs := func(yield func(memory.RememberRequest) bool) {
		if !yield(first.req) {
			return
		}
		for len(s.waiting) < StreamWindow {
			j, ok := s.pull()
			if !ok {
				return
			}
			if j.w != w {
				s.waiting = append(s.waiting, j)
				continue
			}
			at = append(at, j.i)
			if !yield(j.req) {
				return
			}
		}
	}
	w.RememberStream(ctx, reqs, size-first.i, func(k int, m *memory.Memory, err error) {
		s.r.report(w, at[k-base], m, err)
		if n := k - base + 1; n >= memory.RememberChunk {
			at = append(at[:0], at[n:]...) // the reported ones dropped
			base = k + 1
		}
	})
	s.r.done(w)
	return nil
}
