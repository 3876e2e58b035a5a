package memory

import (
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
)

// A store held by another process must not block the pool for other
// workspaces while an Acquire waits for it.
func TestPoolOpenHoldsNoLock(t *testing.T) {
	home := testutil.Hermetic(t)
	a, b := testutil.InitRepo(t), testutil.InitRepo(t)
	held, err := Open(a, Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	old := index.LockWait
	index.LockWait = 2 * time.Second
	t.Cleanup(func() { index.LockWait = old })
	p := NewPool(Options{Home: home})
	defer p.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := p.Acquire(held.Root, nil); err == nil {
			t.Error("acquire of a locked store: want an error")
		}
	}()
	time.Sleep(100 * time.Millisecond) // the first Acquire is waiting for the lock
	start := time.Now()
	w, err := p.Acquire(mustRoot(t, b), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("acquire of another workspace took %s while one waited for a lock", d)
	}
	if err := p.Release(w.Root); err != nil {
		t.Error(err)
	}
	wg.Wait()
	held.Close()
}

func mustRoot(t *testing.T, dir string) string {
	t.Helper()
	r, err := FindRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
