package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// Issue 17: `mkfifo pipe.go; gloss remember --at pipe.go:1` blocked
// forever. Only regular files are opened, and .git is never an anchor.
func TestRememberRefusesSpecialFiles(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/d\n", "main.go": doctorGo})
	if err := syscall.Mkfifo(filepath.Join(repo, "pipe.go"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "o.go")
	if err := os.WriteFile(outside, []byte(doctorGo), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, "link.go")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"pipe.go", ".git/config", "link.go"} {
		done := make(chan error, 1)
		go func() {
			_, err := w.Remember(context.Background(), memory.RememberRequest{Text: "note", Path: filepath.Join(repo, p), StartLine: 1})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("remember at %s: want an error", p)
			} else {
				t.Logf("%s: %v", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("remember at %s blocked", p)
		}
	}
	// Indexing with the FIFO present does not block either.
	done := make(chan error, 1)
	go func() { _, err := w.Index(context.Background()); done <- err }()
	select {
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), "pipe") {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("index blocked on a FIFO")
	}
}

func TestWorkspaceReadFile(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module example.com/d\n", "main.go": doctorGo})
	if data, err := w.ReadFile(filepath.Join(repo, "main.go")); err != nil || string(data) != doctorGo {
		t.Fatalf("ReadFile main.go: %q, %v", data, err)
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "p.go"), 0o644); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{"p.go", ".git/config", "../x.go"} {
		if _, err := w.ReadFile(filepath.Join(repo, p)); err == nil {
			t.Errorf("ReadFile(%s): want an error", p)
		}
	}
}
