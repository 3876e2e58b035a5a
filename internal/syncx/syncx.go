// Package syncx has small synchronization helpers shared by the language
// server and the daemon.
package syncx

import (
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
