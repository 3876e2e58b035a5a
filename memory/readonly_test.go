package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// TestReadOnlyOpen checks Options.ReadOnly: a workspace opened so
// searches the memories written before (including those still in the
// last process's write-ahead log), records its accesses in the access
// file instead of the store, takes a write by reopening the store for
// writing, and the next writable opening adds the filed accesses to the
// store and removes the file.
func TestReadOnlyOpen(t *testing.T) {
	ctx := context.Background()
	w, repo := indexedWorkspace(t, map[string]string{"go.mod": "module x\n", "a.go": "package a\n\n// Retry sends again.\nfunc Retry() int {\n\treturn 3\n}\n"})
	m, err := w.Remember(ctx, memory.RememberRequest{Text: "retries are capped at three", Symbol: "Retry"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pending := filepath.Join(w.Dir, "access.pending")

	for round := 1; round <= 2; round++ {
		ro, err := memory.Open(repo, memory.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ro.FusedSearch(ctx, memory.SearchRequest{Query: "capped retries", Kind: memory.ResultMemory})
		if err != nil || len(res) == 0 || res[0].Memory.ID != m.ID {
			t.Fatalf("round %d: read-only search: %v, %d results", round, err, len(res))
		}
		ro.RecordAccess(m.ID)
		if err := ro.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(pending); err != nil || len(data) == 0 {
		t.Fatalf("access file after two read-only searches: %q, %v", data, err)
	}

	// A write through a read-only workspace reopens the store for writing.
	ro, err := memory.Open(repo, memory.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := ro.Remember(ctx, memory.RememberRequest{Text: "second note on retries", Symbol: "Retry"})
	if err != nil {
		t.Fatalf("write through a read-only workspace: %v", err)
	}
	ro.RecordAccess(m2.ID)
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	rw, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := os.Stat(pending); !os.IsNotExist(err) {
		t.Fatalf("access file not removed by a writable opening: %v", err)
	}
	for id, want := range map[string]int{m.ID: 2, m2.ID: 1} {
		got, err := rw.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		rw.WithAccess(got)
		if got.AccessCount != want {
			t.Errorf("memory %s: access count %d, want %d", id, got.AccessCount, want)
		}
	}
}
