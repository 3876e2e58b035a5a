package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// liveLimitCase is a live heap in bytes and the memory limit in bytes a
// limit function (serveLimit, batchLimit) should keep for it.
type liveLimitCase struct {
	live uint64
	want int64
}

// checkLiveLimits fails t for each case where limit, named name, does
// not give the limit the case wants.
func checkLiveLimits(t *testing.T, name string, limit func(uint64) int64, cases []liveLimitCase) {
	t.Helper()
	for _, c := range cases {
		if got := limit(c.live); got != c.want {
			t.Errorf("%s(%d) = %d, want %d", name, c.live, got, c.want)
		}
	}
}

func TestServeLimit(t *testing.T) {
	checkLiveLimits(t, "serveLimit", serveLimit, []liveLimitCase{
		{0, serveMemoryFloor},
		{200 << 20, serveMemoryFloor},
		{serveMemoryFloor / 3 * 2, serveMemoryFloor},
		{300 << 20, 450 << 20},
		{2 << 30, 3 << 30},
	})
}

// TestBatchLimit checks the limit of `gloss remember --batch`: the floor
// batchMemoryLimit up to a live heap of 4/5 of it, 5/4 of the live heap
// above.
func TestBatchLimit(t *testing.T) {
	checkLiveLimits(t, "batchLimit", batchLimit, []liveLimitCase{
		{0, batchMemoryLimit},
		{140 << 20, batchMemoryLimit},
		{batchMemoryLimit / 5 * 4, batchMemoryLimit},
		{220 << 20, 275 << 20},
	})
}

// TestHoldMemoryLimit checks that the poller keeps the limit at
// serveLimit of the live heap, raises it when the live heap outgrows the
// floor, and restores the previous limit when stopped.
func TestHoldMemoryLimit(t *testing.T) {
	const before = 123 << 30
	prev := debug.SetMemoryLimit(before)
	defer debug.SetMemoryLimit(prev)

	stop := holdMemoryLimit(time.Millisecond, 0, serveLimit)
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

// TestBoundMemoryLeavesGOMEMLIMIT checks that $GOMEMLIMIT wins over the
// limits of a long-running process and of `gloss remember --batch`.
func TestBoundMemoryLeavesGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	for _, c := range []struct {
		name   string
		bound  func() (stop func())
		before int64
	}{
		{"serve", boundServeMemory, 77 << 30},
		{"batch", boundBatchMemory, 55 << 30},
	} {
		prev := debug.SetMemoryLimit(c.before)
		stop := c.bound()
		if got := debug.SetMemoryLimit(-1); got != c.before {
			t.Errorf("%s limit with $GOMEMLIMIT set = %d, want %d untouched", c.name, got, c.before)
		}
		stop()
		debug.SetMemoryLimit(prev)
	}
}

// TestIdleRelease checks when idleRelease gives free memory back: once
// per idle period, after idleAfter of polls under serveIdleRate, with at
// least serveReleaseMin bytes free.
func TestIdleRelease(t *testing.T) {
	const poll = time.Second
	r := idleRelease{idleAfter: 3 * time.Second}
	var allocs uint64
	step := func(alloc, free uint64) bool {
		allocs += alloc
		return r.observe(poll, allocs, free)
	}
	busy, quiet, free := uint64(8<<20), uint64(4<<10), uint64(200<<20)
	for i, c := range []struct {
		alloc, free uint64
		want        bool
	}{
		{busy, free, false},
		{quiet, free, false}, {quiet, free, false},
		{quiet, free, true},                        // 3 s quiet
		{quiet, free, false}, {quiet, free, false}, // once per idle period
		{busy, free, false}, // activity: a new period
		{quiet, free, false}, {quiet, free, false},
		{quiet, serveReleaseMin - 1, false}, // too little free
		{quiet, free, true},
	} {
		if got := step(c.alloc, c.free); got != c.want {
			t.Fatalf("poll %d (alloc %d, free %d): release %v, want %v", i, c.alloc, c.free, got, c.want)
		}
	}
}

// TestHoldMemoryLimitReleasesIdleHeap checks that holdMemoryLimit gives
// the heap's free memory back once the process is idle: with the
// collector's goal well above the heap (GOGC=1000), 96 MiB of garbage
// collected stays resident (the background scavenger only returns memory
// above the goal) until the idle release.
func TestHoldMemoryLimitReleasesIdleHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(1000))
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	live := make([][]byte, 16)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	var garbage [][]byte
	for range 96 {
		b := make([]byte, 1<<20)
		b[0] = 1
		garbage = append(garbage, b)
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}, {Name: heapFreeMetric}}
	metrics.Read(sample)
	released0, free0 := sample[0].Value.Uint64(), sample[1].Value.Uint64()
	if free0 < 64<<20 {
		t.Skipf("only %d bytes free after the collection: the runtime returned them already", free0)
	}
	stop := holdMemoryLimit(20*time.Millisecond, 100*time.Millisecond, serveLimit)
	defer stop()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		metrics.Read(sample)
		if sample[0].Value.Uint64() >= released0+64<<20 {
			runtime.KeepAlive(live)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("released %d → %d bytes (free %d → %d): want ≥ 64 MiB more after an idle period", released0, sample[0].Value.Uint64(), free0, sample[1].Value.Uint64())
}
