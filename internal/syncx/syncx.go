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
