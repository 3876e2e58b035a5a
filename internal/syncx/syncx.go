// Package syncx has small synchronization helpers shared by the language
// server, the daemon and the packages that share work among goroutines.
package syncx

import (
	"runtime"
	"sync"
	"time"
)

// WaitTimeout waits for wg for at most d and reports whether it finished.
// When it did not, the goroutine waiting on wg is left behind until wg
// finishes.
func WaitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Coalescer runs a function in the background at most once at a time; a
// request while it runs makes it run once more afterwards.
type Coalescer struct {
	mu      sync.Mutex
	running bool
	dirty   bool
	idle    *sync.Cond
}

// Run starts fn (then done) unless it is already running, in which case it
// marks a rerun and returns false (done is not called).
func (c *Coalescer) Run(fn func(), done func()) bool {
	c.mu.Lock()
	if c.running {
		c.dirty = true
		c.mu.Unlock()
		return false
	}
	c.running = true
	c.mu.Unlock()
	go func() {
		defer done()
		for {
			fn()
			c.mu.Lock()
			if !c.dirty {
				c.running = false
				if c.idle != nil {
					c.idle.Broadcast()
				}
				c.mu.Unlock()
				return
			}
			c.dirty = false
			c.mu.Unlock()
		}
	}()
	return true
}

// Wait blocks until no run is in progress.
func (c *Coalescer) Wait() {
	c.mu.Lock()
	if c.idle == nil {
		c.idle = sync.NewCond(&c.mu)
	}
	for c.running {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

// Ranges calls fn(lo, hi) for consecutive ranges [lo, hi) covering
// 0..n−1, on up to GOMAXPROCS goroutines with at least minPer indices
// each (minPer ≥ 1): one call on the calling goroutine when n is too
// small to share, else one goroutine per range, ranges of equal length
// but the last. It returns when every call has, with the error of the
// first range (in index order) whose call failed, or nil. fn must be safe
// for concurrent use on disjoint ranges.
func Ranges(n, minPer int, fn func(lo, hi int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n/max(minPer, 1))
	if workers <= 1 {
		if n <= 0 {
			return nil
		}
		return fn(0, n)
	}
	per := (n + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*per, n), min((w+1)*per, n)
		wg.Go(func() { errs[w] = fn(lo, hi) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
