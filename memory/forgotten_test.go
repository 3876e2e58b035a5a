package memory_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// TestForgetRestore: a forgotten project memory comes back with its file,
// a second restore finds nothing, a restored memory can be forgotten
// again, and a tombstone older than RestoreWindow cannot be restored.
func TestForgetRestore(t *testing.T) {
	tr := newTeamRepo(t)
	w, id := tr.w, tr.project.ID
	if _, err := w.Forget(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tr.file(id)); !os.IsNotExist(err) {
		t.Fatalf("memory file after forget: %v", err)
	}
	if _, err := w.Get(id); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("get after forget: %v", err)
	}
	m, err := w.Restore(id)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != id || m.Title != tr.project.Title || m.Scope != memory.ScopeProject {
		t.Fatalf("restored %+v", m)
	}
	if _, err := os.Stat(tr.file(id)); err != nil {
		t.Fatalf("memory file after restore: %v", err)
	}
	if got := ids(t, w); len(got) != 2 {
		t.Fatalf("memories after restore: %v", got)
	}
	if _, err := w.Restore(id); err == nil {
		t.Fatal("restore of a memory that exists succeeded")
	}
	if _, err := w.Forget(id); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Restore("01AAAAAAAAAAAAAAAAAAAAAAAA"); !errors.Is(err, memory.ErrNotForgotten) {
		t.Fatalf("restore of a memory that was never forgotten: %v", err)
	}

	// Forgotten too long ago.
	old := memory.RestoreWindow
	memory.RestoreWindow = -time.Second
	defer func() { memory.RestoreWindow = old }()
	if _, err := w.Restore(id); !errors.Is(err, memory.ErrNotForgotten) {
		t.Fatalf("restore after the window: %v", err)
	}
}
