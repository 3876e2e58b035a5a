package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestCheckViewsResolvesOnlyChangedFiles: CheckViews re-resolves the
// anchors of an edited file only, reports every memory from its summary
// with the status Check computes, and looks at a file again after a memory
// write touched it.
func TestCheckViewsResolvesOnlyChangedFiles(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/m\n",
		"a.go":   "package m\n\nfunc A(x int) int {\n\treturn x + 1\n}\n",
		"b.go":   "package m\n\nfunc B(x int) int {\n\treturn x * 2\n}\n",
	}
	w, repo := indexedWorkspace(t, files)
	ctx := context.Background()
	for _, f := range []string{"a.go", "b.go"} {
		if _, err := w.Remember(ctx, memory.RememberRequest{Text: "note on " + f, Path: filepath.Join(repo, f), StartLine: 3, EndLine: 5}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.CheckViews(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Views) != 2 || res.Resolved != 0 {
		t.Fatalf("first check: %d views, %d resolved; want 2, 0", len(res.Views), res.Resolved)
	}
	if res, err = w.CheckViews(ctx); err != nil || res.Resolved != 0 || len(res.Memories) != 0 {
		t.Fatalf("unchanged: %d resolved, %d decoded, %v", res.Resolved, len(res.Memories), err)
	}
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "package m\n\nfunc A(x int) int {\n\treturn x + 2\n}\n"})
	res, err = w.CheckViews(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved != 1 || res.Updated != 1 || res.Memories != nil {
		t.Fatalf("a.go edited: %d resolved, %d updated, %d memories returned; want 1, 1 and none (a.go's, stale below)", res.Resolved, res.Updated, len(res.Memories))
	}
	stale := map[string]bool{}
	for _, v := range res.Views {
		stale[v.Anchors[0].Path] = v.Stale
	}
	if !stale["a.go"] || stale["b.go"] {
		t.Fatalf("stale by path %v, want a.go only", stale)
	}
	full, err := w.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range full.Memories {
		if m.Stale() != stale[m.Anchors[0].Path] {
			t.Fatalf("Check says %s stale=%v, CheckViews %v", m.Anchors[0].Path, m.Stale(), stale[m.Anchors[0].Path])
		}
	}
	// A memory write touches b.go: the next check looks at it again (and
	// finds nothing to re-resolve).
	if _, err := w.Remember(ctx, memory.RememberRequest{Text: "second note", Path: filepath.Join(repo, "b.go"), StartLine: 4}); err != nil {
		t.Fatal(err)
	}
	if res, err = w.CheckViews(ctx); err != nil || len(res.Views) != 3 || res.Resolved != 0 {
		t.Fatalf("after a write: %d views, %d resolved, %v", len(res.Views), res.Resolved, err)
	}
}
