package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// A memory imported from git ranks below a hand-written one of the same
// text, in search and in context.
func TestSourceTrustRanking(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 1\n}\n", "go.mod": "module example.com/a\n"})
	ctx := context.Background()
	var ids []string
	for _, src := range []string{"imported_git", "user"} {
		m, err := w.Remember(ctx, memory.RememberRequest{Text: "retries are capped at three", Path: filepath.Join(repo, "a.go"), StartLine: 3, EndLine: 5, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	hits, err := w.Search(ctx, "retries capped", 10)
	if err != nil || len(hits) != 2 {
		t.Fatalf("search: %v, %v", hits, err)
	}
	if hits[0].Memory.ID != ids[1] || hits[1].Score >= hits[0].Score {
		t.Errorf("search ranks %s (%.3f) before %s (%.3f); want the user's memory first", hits[0].Memory.Source, hits[0].Score, hits[1].Memory.Source, hits[1].Score)
	}
	items, err := w.Context(ctx, memory.ContextRequest{Task: "retries capped", Files: []string{filepath.Join(repo, "a.go")}})
	if err != nil || len(items) != 2 || items[0].Memory.ID != ids[1] {
		t.Errorf("context: %v, %v; want the user's memory first", items, err)
	}
}
