package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestServeLimit(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, serveMemoryFloor},
		{200 << 20, serveMemoryFloor},
		{serveMemoryFloor / 3 * 2, serveMemoryFloor},
		{300 << 20, 450 << 20},
		{2 << 30, 3 << 30},
	} {
		if got := serveLimit(c.live); got != c.want {
			t.Errorf("serveLimit(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// TestHoldMemoryLimit checks that the poller keeps the limit at
// serveLimit of the live heap, raises it when the live heap outgrows the
// floor, and restores the previous limit when stopped.
func TestHoldMemoryLimit(t *testing.T) {
	const before = 123 << 30
	prev := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(prev)

	stop := holdMemoryLimit(time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got < serveMemoryFloor || got == before {
		t.Fatalf("limit while held = %d, want ≥ %d", got, int64(serveMemoryFloor))
	}
	// A live heap past the floor raises the limit to 3/2 of it.
	big := make([]byte, serveMemoryFloor/4*3)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.GC()
	want := int64(len(big)) / 2 * 3
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < want {
		t.Errorf("limit with a live heap of %d = %d, want ≥ %d", len(big), got, want)
	}
	runtime.KeepAlive(big)
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after stop = %d, want %d", got, int64(before))
	}
}

// TestBoundServeMemoryLeavesGOMEMLIMIT checks that $GOMEMLIMIT wins.
func TestBoundServeMemoryLeavesGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	const before = 77 << 30
	prev := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(prev)
	stop := boundServeMemory()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit with $GOMEMLIMIT set = %d, want %d untouched", got, int64(before))
	}
	stop()
}
