package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// collector gathers reported events.
type collector struct {
	mu   sync.Mutex
	cond *sync.Cond
	got  map[string]Event
}

func (c *collector) add(evs []Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range evs {
		c.got[e.Path] = e
	}
	c.cond.Broadcast()
}

// wait waits (up to 10 s) until path was reported and returns its event.
func (c *collector) wait(t *testing.T, path string) Event {
	t.Helper()
	timer := time.AfterFunc(10*time.Second, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(10 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if e, ok := c.got[path]; ok {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not reported; got %v", path, c.got)
		}
		c.cond.Wait()
	}
}

// TestWatcher: files written in watched and newly created directories,
// deletions and git's index are reported; files inside .git and
// node_modules are not.
func TestWatcher(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", ".git/objects", "node_modules/x", ".gloss/memories"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, s string) string {
		p := filepath.Join(root, rel)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := write("a/gone.go", "package a\n")
	c := &collector{got: map[string]Event{}}
	c.cond = sync.NewCond(&c.mu)
	w, err := New(c.add, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(root); err != nil {
		t.Fatal(err)
	}
	write("node_modules/x/i.js", "x")
	write(".git/objects/o", "x")
	if e := c.wait(t, write("a/a.go", "package a\n")); e.Deleted || e.Git {
		t.Errorf("a.go: %+v", e)
	}
	if e := c.wait(t, write(".gloss/memories/m.md", "x")); e.Deleted {
		t.Errorf("memory file: %+v", e)
	}
	if err := os.MkdirAll(filepath.Join(root, "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.wait(t, filepath.Join(root, "b"))
	// The new directories are watched once b's creation was reported
	// (event adds them before it records the path).
	c.wait(t, write("b/c/new.go", "package c\n"))
	if e := c.wait(t, write(".git/index", "x")); !e.Git {
		t.Errorf(".git/index: %+v", e)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if e := c.wait(t, gone); !e.Deleted {
		t.Errorf("removed file: %+v", e)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range []string{"node_modules/x/i.js", ".git/objects/o"} {
		if _, ok := c.got[filepath.Join(root, p)]; ok {
			t.Errorf("%s was reported", p)
		}
	}
}

// TestAddTreeAfterClose: a watcher closed while it walks a tree (a
// daemon session that ended at once) stops walking and logs nothing; it
// logged "watch DIR: fsnotify: watcher already closed" for every
// directory left.
func TestAddTreeAfterClose(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var logged []string
	w, err := New(func([]Event) {}, func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(format, args...))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.addTree(root, false)
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 0 {
		t.Fatalf("addTree after Close logged %q", logged)
	}
}
