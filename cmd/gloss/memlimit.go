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

// serveLiveRatio is how far above the live heap serveLimit keeps the
// limit, as a fraction num/den = 3/2: when the live heap outgrows
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
	l := int64(live / serveLiveDen * serveLiveNum)
	return max(l, serveMemoryFloor)
}

// boundServeMemory keeps the Go memory limit of a long-running process at
// serveLimit of its live heap, read every servePoll, unless $GOMEMLIMIT
// sets one. It returns the function that stops it and restores the limit
// it replaced (a no-op when $GOMEMLIMIT is set).
func boundServeMemory() (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	return holdMemoryLimit(servePoll)
}

// holdMemoryLimit sets the limit to serveLimit of the live heap now and
// every poll until stop is called; stop waits for the poller to end, then
// restores the previous limit.
func holdMemoryLimit(poll time.Duration) (stop func()) {
	sample := []metrics.Sample{{Name: liveHeapMetric}}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			debug.SetMemoryLimit(serveLimit(sample[0].Value.Uint64()))
		}
	}
	prev := debug.SetMemoryLimit(-1)
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
