package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// TestMemoryCountFromSummaries: with every memory's summary current (after
// a check) the store counts memories by their summaries; the count follows
// writes and forgets exactly as the records do.
func TestMemoryCountFromSummaries(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"a.go": "package a\n\nfunc A() {\n\tprintln(1)\n}\n\nfunc B() {}\n"})
	ctx := context.Background()
	var first string
	for i := 0; i < 3; i++ {
		m, err := w.Remember(ctx, memory.RememberRequest{Text: fmt.Sprintf("note %d", i), Path: filepath.Join(repo, "a.go"), StartLine: 3, EndLine: 5})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = m.ID
			// A store's summaries are known current after a check
			// (which rebuilds them once for a store of an older gloss).
			if _, err := w.CheckViews(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.Forget(first); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Store.SummariesCurrent(); err != nil || !ok {
		t.Fatalf("summaries current: %v, %v", ok, err)
	}
	all, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Store.MemoryCount()
	if err != nil || n != 2 || len(all) != 2 {
		t.Fatalf("MemoryCount %d (%v), List %d: want 2 and 2", n, err, len(all))
	}
}
