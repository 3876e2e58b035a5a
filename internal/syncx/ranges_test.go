package syncx

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestRanges checks that Ranges calls fn on ranges covering every index
// once, in one call when n is too small to share, and returns the error
// of the first failing range in index order.
func TestRanges(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, tc := range []struct{ n, minPer, calls int }{
		{0, 8, 0}, {5, 8, 1}, {15, 8, 1}, {16, 8, 2}, {1000, 8, 4}, {3, 1, 3},
	} {
		seen := make([]atomic.Int32, tc.n)
		var calls atomic.Int32
		err := Ranges(tc.n, tc.minPer, func(lo, hi int) error {
			calls.Add(1)
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			return nil
		})
		if err != nil || int(calls.Load()) != tc.calls {
			t.Fatalf("n %d minPer %d: %d calls, %v; want %d", tc.n, tc.minPer, calls.Load(), err, tc.calls)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n %d: index %d seen %d times", tc.n, i, seen[i].Load())
			}
		}
	}
	err := Ranges(1000, 8, func(lo, hi int) error {
		if lo > 0 {
			return fmt.Errorf("range at %d", lo)
		}
		return nil
	})
	if err == nil || err.Error() != "range at 250" {
		t.Fatalf("error %v, want the first failing range's (at 250)", err)
	}
	if err := Ranges(10, 1, func(lo, hi int) error { return errors.New("x") }); err == nil {
		t.Fatal("an error was lost")
	}
}
