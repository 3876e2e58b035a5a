package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// serveMemoryFloor is the smallest Go memory limit the long-running
// commands (`gloss daemon`, `gloss lsp`, `gloss mcp`) keep
// (runtime/debug.SetMemoryLimit, a soft limit: the collector runs more
// often near it, nothing fails past it), 400 MiB. A daemon at 100,000
// memories on prometheus settles near 210 MB of live heap and reaches
// 336 MB while it retrains the built-in embedder and re-embeds every
// memory after a large batch; the default collector pacing (GOGC=100)
// let its resident set reach 776–853 MB there, 661–691 MB with this
// floor and serveLimit's 3/2 of the live heap, for the same CPU time
// (a fixed 400 MiB: 605 MB, 10 % more CPU; 5/4 of the live heap:
// 616–623 MB, 15–20 % more; a fixed 300 MiB: 593 MB, 70 % more, Pebble's
// block cache and memtables being outside the Go heap;
// docs/benchmarks.md, session 22).
const serveMemoryFloor = 400 << 20

// serveLiveNum/serveLiveDen is how far above the live heap serveLimit
// keeps the limit: 3/2; when the live heap outgrows
// serveMemoryFloor (a larger store), the collector paces at worst as
// with GOGC=50 and never spins against the limit.
const serveLiveNum, serveLiveDen = 3, 2

// servePoll is how often boundServeMemory reads the live heap.
const servePoll = time.Second

// liveHeapMetric is the runtime/metrics name of the heap that survived
// the last collection, in bytes (Go 1.21+).
const liveHeapMetric = "/gc/heap/live:bytes"

// serveLimit returns the Go memory limit in bytes for a process whose
// live heap after its last collection is live bytes:
// max(serveMemoryFloor, live × 3/2).
func serveLimit(live uint64) int64 {
	return liveLimit(live, serveMemoryFloor, serveLiveNum, serveLiveDen)
}

// liveLimit returns a Go memory limit in bytes that follows a live heap
// of live bytes above floor: max(floor, live × num/den).
func liveLimit(live uint64, floor int64, num, den uint64) int64 {
	return max(int64(live/den*num), floor)
}

// gomemlimitSet reports whether $GOMEMLIMIT sets the Go memory limit, in
// which case gloss leaves the limit to it.
func gomemlimitSet() bool { return os.Getenv("GOMEMLIMIT") != "" }

// boundMemory keeps the Go memory limit at limit of the live heap, read
// every poll, and gives free heap memory back after idleAfter of
// idleness (holdMemoryLimit), unless $GOMEMLIMIT sets one; it returns
// the function that stops it and restores the limit it replaced (a no-op
// when $GOMEMLIMIT is set: nothing is done then).
func boundMemory(poll, idleAfter time.Duration, limit func(live uint64) int64) (stop func()) {
	if gomemlimitSet() {
		return func() {}
	}
	return holdMemoryLimit(poll, idleAfter, limit)
}

// boundServeMemory keeps the Go memory limit of a long-running process at
// serveLimit of its live heap, read every servePoll, unless $GOMEMLIMIT
// sets one, and gives the heap's free memory back to the operating system
// once the process has been idle for serveIdleAfter (idleRelease). It
// returns the function that stops it and restores the limit it replaced
// (a no-op when $GOMEMLIMIT is set: nothing is done then).
func boundServeMemory() (stop func()) {
	return boundMemory(servePoll, serveIdleAfter, serveLimit)
}

// serveIdleAfter is how long a long-running process allocates less than
// serveIdleRate before idleRelease gives its free heap memory back.
const serveIdleAfter = 5 * time.Second

// serveIdleRate is the allocation rate, in bytes per second, under which
// a long-running process counts as idle: 1 MiB/s (a daemon at 100,000
// memories serving nothing allocates a few KiB per second; a hover, a
// list page or a search allocates megabytes).
const serveIdleRate = 1 << 20

// serveReleaseMin is the heap memory a collection would leave free (heap
// objects not live at the last collection, free and unused heap bytes not
// given back) from which idleRelease gives it back: 32 MiB.
const serveReleaseMin = 32 << 20

// idleRelease decides, from one poll to the next, when a long-running
// process gives its free heap memory back to the operating system
// (runtime/debug.FreeOSMemory: a collection, then every free page
// returned). The collector paces the heap at up to twice its live size,
// within the memory limit (serveLimit), and the runtime's background
// scavenger only returns what lies above that goal: a daemon at 100,000
// memories on prometheus holds 194 MB of live heap and kept 374 MB of Go
// memory resident while idle after a few searches (their garbage not
// collected yet: the next collection was due at twice the live heap)
// (docs/benchmarks.md, session 23). Once per idle period: when polls
// have seen less than serveIdleRate for idleAfter and at least
// serveReleaseMin bytes would be free; activity starts a new period.
type idleRelease struct {
	idleAfter time.Duration
	quiet     time.Duration // idle time so far
	lastAlloc uint64        // cumulative allocated bytes at the last poll
	released  bool          // given back in this idle period
}

// observe records a poll poll after the previous one, with allocs the
// cumulative bytes allocated and free the heap bytes a collection would
// leave free and not released; it reports whether to give the free
// memory back now.
func (r *idleRelease) observe(poll time.Duration, allocs, free uint64) bool {
	delta := allocs - r.lastAlloc
	r.lastAlloc = allocs
	if delta > uint64(serveIdleRate*poll.Seconds()) {
		r.quiet, r.released = 0, false
		return false
	}
	r.quiet += poll
	if r.released || r.quiet < r.idleAfter || free < serveReleaseMin {
		return false
	}
	r.released = true
	return true
}

// Runtime metrics read by holdMemoryLimit (runtime/metrics, Go 1.21+),
// in bytes: cumulative heap allocation; heap memory free and not
// released, unused inside spans, and held by objects (live or not).
const (
	allocsMetric      = "/gc/heap/allocs:bytes"
	heapFreeMetric    = "/memory/classes/heap/free:bytes"
	heapUnusedMetric  = "/memory/classes/heap/unused:bytes"
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
)

// holdMemoryLimit sets the limit to limit(live heap) now and every poll
// until stop is called, and gives free heap memory back after idleAfter
// of idleness (idleRelease; never when idleAfter ≤ 0); stop waits for the
// poller to end, then restores the previous limit.
func holdMemoryLimit(poll, idleAfter time.Duration, limit func(live uint64) int64) (stop func()) {
	sample := []metrics.Sample{{Name: liveHeapMetric}, {Name: allocsMetric}, {Name: heapFreeMetric}, {Name: heapUnusedMetric}, {Name: heapObjectsMetric}}
	u := func(i int) uint64 {
		if sample[i].Value.Kind() == metrics.KindUint64 {
			return sample[i].Value.Uint64()
		}
		return 0
	}
	idle := idleRelease{idleAfter: idleAfter}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			debug.SetMemoryLimit(limit(u(0)))
		}
		if idleAfter > 0 && idle.observe(poll, u(1), u(2)+u(3)+u(4)-min(u(4), u(0))) {
			debug.FreeOSMemory()
			metrics.Read(sample)
			idle.lastAlloc = u(1) // the collection's own allocations are not activity
		}
	}
	prev := debug.SetMemoryLimit(-1)
	metrics.Read(sample)
	idle.lastAlloc = u(1)
	set()
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				set()
			}
		}
	}()
	return func() {
		close(done)
		<-ended
		debug.SetMemoryLimit(prev)
	}
}

// batchLiveNum/batchLiveDen is how far above the live heap batchLimit
// keeps the limit of `gloss remember --batch`: 5/4.
const batchLiveNum, batchLiveDen = 5, 4

// batchPoll is how often boundBatchMemory reads the live heap.
const batchPoll = 200 * time.Millisecond

// batchLimit returns the Go memory limit in bytes of `gloss remember
// --batch` for a live heap of live bytes: max(batchMemoryLimit, live ×
// 5/4). A batch on a repository of large files holds more than the
// floor: on sympy (1,603 Python files, 27.9 MB) 20,000 memories held
// ~220 MB live, and the 200 MiB limit ran the collector back to back
// (28 % of the CPU in its mark workers) for a peak of 302–320 MiB all the
// same: 9.2–10.0 s; with this limit 6.9 s and 329–337 MiB
// (docs/benchmarks.md, session 23). On prometheus the live heap stays
// near 160 MiB, where the floor mostly holds (peak 261–266 MiB, was
// 251–257).
func batchLimit(live uint64) int64 {
	return liveLimit(live, batchMemoryLimit, batchLiveNum, batchLiveDen)
}

// boundBatchMemory keeps the Go memory limit of `gloss remember --batch`
// at batchLimit of its live heap, read every batchPoll, unless
// $GOMEMLIMIT sets one; it returns the function that stops it and
// restores the limit it replaced (a no-op when $GOMEMLIMIT is set).
func boundBatchMemory() (stop func()) {
	return boundMemory(batchPoll, 0, batchLimit)
}
