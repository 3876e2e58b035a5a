package index

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// filesChunk is how many file records FilesConcurrent hands to a decoding
// goroutine at once: enough to make the channel's cost small beside the
// JSON decoding of the records (tens of microseconds each).
const filesChunk = 64

// errStopScan stops FilesConcurrent's scan after a failure.
var errStopScan = errors.New("scan stopped")

// FilesConcurrent is Files with the records decoded, and fn called, on n
// goroutines (at least 1): fn gets each record with its 0-based position
// i in Files' order (path order), so that a caller that keeps its results
// by i gets Files' order back. fn must be safe for concurrent use. The
// scan itself stays on the calling goroutine, which copies the values
// out of the iterator. An error (a corrupt record, or one fn returned)
// stops the scan, and the one returned is the error of the first record
// in Files' order that failed, as Files would return; records after it
// may still have been passed to fn.
func (s *Store) FilesConcurrent(n int, fn func(i int, rec *FileRecord) error) error {
	type chunk struct {
		first int
		vals  [][]byte
	}
	n = max(n, 1)
	jobs := make(chan chunk, 2*n)
	var stop atomic.Int64 // position of the first failed record so far
	stop.Store(math.MaxInt64)
	var mu sync.Mutex // guards firstErr
	var firstErr error
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if int64(i) < stop.Load() {
			stop.Store(int64(i))
			firstErr = err
		}
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				for k, val := range c.vals {
					i := c.first + k
					if int64(i) > stop.Load() {
						break
					}
					var r FileRecord
					if err := decodeFileRecord(val, &r); err != nil {
						fail(i, fmt.Errorf("corrupt file record: %w", err))
						break
					}
					if err := fn(i, &r); err != nil {
						fail(i, err)
						break
					}
				}
			}
		}()
	}
	next := chunk{}
	i := 0
	err := Scan(s.pdb(), func(_ []string, val []byte) error {
		if stop.Load() != math.MaxInt64 {
			return errStopScan
		}
		next.vals = append(next.vals, append([]byte(nil), val...))
		i++
		if len(next.vals) == filesChunk {
			jobs <- next
			next = chunk{first: i}
		}
		return nil
	}, prefixFile)
	if err == nil && len(next.vals) > 0 {
		jobs <- next
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr // every record before it was handed out and passed to fn
	}
	return err // a read error of the scan (errStopScan only follows a failure)
}
