package index

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// RunOptions are the per-run options of Indexer.Run (its parameter) so
// that each door sets its own: the language server reports $/progress,
// the CLI draws a progress bar, and the memory package puts the files
// with memories first. The zero value runs in walk order, silently.
type RunOptions struct {
	// First, when set, is called once by a run that has two or more
	// files to parse and returns workspace-relative paths to parse before
	// the others (files with memories), in that order; paths the run does
	// not need to parse are ignored.
	First func() []string
	// Progress, when set, is called from the run's goroutine after each
	// file to parse is done (parsed, skipped or found unchanged by content)
	// with done and total counts of those files; total is the same for
	// the whole run and 0 when nothing needs parsing (then it is called
	// once with 0, 0).
	Progress func(done, total int)
	// Bulk, on a store that holds no file records (a first index), writes
	// the run's records as sorted tables that Pebble ingests at the
	// bottom of its tree (Store.ingestBatches) once the run is over, or
	// once they pass bulkLimitBytes, instead of committing a batch about
	// every second: no flush or compaction rewrites them (2 cores, a
	// Python tree of 668 files: Pebble's compactions were ~6 % of a cold
	// index's CPU). Readers see nothing of the run until then, so it is
	// for `gloss index`, not for runs an editor waits on (Prioritize).
	Bulk bool
}

// scheduler is the part of an Indexer that orders a run's parses: paths
// asked for while it runs (Prioritize) jump the queue, and parses wait
// while foreground work (Foreground) is in progress.
type scheduler struct {
	mu     sync.Mutex
	urgent []string
	fg     atomic.Int32
}

// Prioritize asks a running (or the next) Run to parse the
// workspace-relative paths before any other file still queued: an editor
// opened them. Paths the run does not need to parse are ignored.
func (ix *Indexer) Prioritize(paths ...string) {
	ix.sched.mu.Lock()
	ix.sched.urgent = append(ix.sched.urgent, paths...)
	ix.sched.mu.Unlock()
}

func (ix *Indexer) takeUrgent() []string {
	ix.sched.mu.Lock()
	defer ix.sched.mu.Unlock()
	u := ix.sched.urgent
	ix.sched.urgent = nil
	return u
}

// Foreground marks foreground work (an editor request: hover, code lens)
// until release is called: meanwhile the workers of a running Run start
// no new parse, for at most ForegroundWait each, so the request gets the
// cores. Parses already running go on.
func (ix *Indexer) Foreground() (release func()) {
	ix.sched.fg.Add(1)
	var once sync.Once
	return func() { once.Do(func() { ix.sched.fg.Add(-1) }) }
}

// ForegroundWait bounds how long a worker waits for foreground work
// before starting its next parse anyway (so a stream of requests cannot
// stall indexing).
var ForegroundWait = time.Second

// yield waits while foreground work is marked, up to ForegroundWait.
func (ix *Indexer) yield(ctx context.Context) {
	deadline := time.Now().Add(ForegroundWait)
	for ix.sched.fg.Load() > 0 && ctx.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// orderFirst moves the jobs whose paths are in first to the front, in
// first's order, keeping the others in walk order.
func orderFirst(jobs []parseJob, first []string) []parseJob {
	if len(first) == 0 || len(jobs) == 0 {
		return jobs
	}
	pos := make(map[string]int, len(jobs))
	for i, j := range jobs {
		pos[j.cand.Path] = i
	}
	taken := make([]bool, len(jobs))
	out := make([]parseJob, 0, len(jobs))
	for _, p := range first {
		if i, ok := pos[p]; ok && !taken[i] {
			taken[i] = true
			out = append(out, jobs[i])
		}
	}
	for i, j := range jobs {
		if !taken[i] {
			out = append(out, j)
		}
	}
	return out
}

// feed sends jobs to in in order, except that paths Prioritize names
// meanwhile are sent next; it stops when ctx is done.
func (ix *Indexer) feed(ctx context.Context, jobs []parseJob, in chan<- parseJob) {
	pos := make(map[string]int, len(jobs))
	for i, j := range jobs {
		pos[j.cand.Path] = i
	}
	sent := make([]bool, len(jobs))
	send := func(i int) bool {
		sent[i] = true
		select {
		case in <- jobs[i]:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for next := 0; next < len(jobs); {
		for _, p := range ix.takeUrgent() {
			if i, ok := pos[p]; ok && !sent[i] && !send(i) {
				return
			}
		}
		for next < len(jobs) && sent[next] {
			next++
		}
		if next < len(jobs) && !send(next) {
			return
		}
	}
}

// parseHook is the function SetParseHook installed (nil: none).
var parseHook atomic.Pointer[func(path string)]

// SetParseHook makes every indexing run call fn, on its worker
// goroutines, with the workspace-relative path of each file before
// parsing it, until restore is called. It exists for tests that hold a
// run midway (a hover answered during background indexing).
func SetParseHook(fn func(path string)) (restore func()) {
	parseHook.Store(&fn)
	return func() { parseHook.Store(nil) }
}

// beforeParse calls the parse hook, if any, with path.
func beforeParse(path string) {
	if h := parseHook.Load(); h != nil {
		(*h)(path)
	}
}

// weightHook is the function setWeightHook installed (nil: none).
var weightHook atomic.Pointer[func(path string, held int64)]

// setWeightHook makes every indexing run call fn, on its worker
// goroutines, with a file's path and the share of the parse budget its
// worker holds for it, each time that share changes (0 once the file is
// parsed), until restore is called. For tests of the parse budget.
func setWeightHook(fn func(path string, held int64)) (restore func()) {
	weightHook.Store(&fn)
	return func() { weightHook.Store(nil) }
}

// weighed calls the weight hook, if any, with path and held.
func weighed(path string, held int64) {
	if h := weightHook.Load(); h != nil {
		(*h)(path, held)
	}
}
