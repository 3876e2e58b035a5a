package wspool

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// A store held by another process must not block the pool for other
// workspaces while an Acquire waits for it.
func TestPoolOpenHoldsNoLock(t *testing.T) {
	home := testutil.Hermetic(t)
	a, b := testutil.InitRepo(t), testutil.InitRepo(t)
	// Another process holds a's store.
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHoldStore$")
	holder.Env = append(os.Environ(), "GLOSS_TEST_HOLD="+a, "GLOSS_HOME="+home)
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("holder: %v", err)
	}
	old := index.LockWait
	index.LockWait = 2 * time.Second
	t.Cleanup(func() { index.LockWait = old })
	p := New(memory.Options{Home: home})
	defer p.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		_, err := p.Acquire(mustRoot(t, a), nil)
		t.Logf("locked acquire: %v after %s", err, time.Since(start))
		if err == nil {
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
}

// TestHelperHoldStore is not a test: run by TestPoolOpenHoldsNoLock as
// another process, it opens the store of $GLOSS_TEST_HOLD, says so on
// stdout and holds it until killed.
func TestHelperHoldStore(t *testing.T) {
	dir := os.Getenv("GLOSS_TEST_HOLD")
	if dir == "" {
		t.Skip("helper process only")
	}
	w, err := memory.Open(dir, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fmt.Println("holding")
	time.Sleep(time.Minute)
}

func mustRoot(t *testing.T, dir string) string {
	t.Helper()
	r, err := memory.FindRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
