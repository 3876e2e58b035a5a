package memory_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// TestWarmCodeMatchesBluge runs the same code searches on two workspaces
// of one repository, one warmed as a daemon warms it (the store's
// definition table and the in-memory BM25 code index: WarmCode) and one
// answering from Bluge and Pebble, through a re-index that adds a
// definition, an unsaved buffer that replaces it and the buffer's close:
// the hits (definitions, order) are the same throughout, and the scores
// equal to 1e-9 until the index changes. After a change the BM25
// statistics (N, average field length) may differ, as the text ranker's
// do (index.BM25Text): both count deleted documents until the in-memory index
// compacts or Bluge merges segments, which Bluge does in the background
// (on a loaded machine often not before the comparison), so from the
// re-index on only the hits and their order are compared.
func TestWarmCodeMatchesBluge(t *testing.T) {
	warm, repo := indexedWorkspace(t, graphFiles)
	cold, err := memory.Open(repo, memory.Options{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cold.Close()
	ctx := context.Background()
	if _, err := cold.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if err := warm.Store.WarmDefinitions(); err != nil {
		t.Fatal(err)
	}
	if err := warm.WarmCode(ctx); err != nil {
		t.Fatal(err)
	}
	queries := []string{"computes", "Beta", "tree mow", "cold storage", "signing keys", "a.go", "func", "Alpha runs"}
	compare := func(step string, scores bool) {
		t.Helper()
		for _, q := range queries {
			got, err := warm.SearchCode(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			want, err := cold.SearchCode(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%s: %q: %d hits warm, %d from Bluge", step, q, len(got), len(want))
				continue
			}
			for i := range got {
				if got[i].Def != want[i].Def || scores && math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
					t.Errorf("%s: %q hit %d: warm %s %g, Bluge %s %g", step, q, i, got[i].Def.Symbol, got[i].Score, want[i].Def.Symbol, want[i].Score)
				}
			}
		}
	}
	compare("indexed", true)
	if hits, _ := warm.SearchCode(ctx, "computes", 5); len(hits) == 0 || hits[0].Def.Name != "Beta" {
		t.Fatalf("warm search for a doc comment word: %+v", hits)
	}
	path := filepath.Join(repo, "d", "d.go")
	if err := os.WriteFile(path, []byte("package d\n\nfunc Far() int { return 4 }\n\n// uploadToColdStorage moves blobs.\nfunc uploadToColdStorage() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(5 * time.Second)
	_ = os.Chtimes(path, later, later)
	for _, w := range []*memory.Workspace{warm, cold} {
		if _, err := w.Index(ctx); err != nil {
			t.Fatal(err)
		}
	}
	compare("re-indexed", false)
	if hits, _ := warm.SearchCode(ctx, "cold storage", 5); len(hits) != 1 || hits[0].Def.Name != "uploadToColdStorage" {
		t.Fatalf("warm search after re-index: %+v", hits)
	}
	buf := []byte("package d\n\nfunc Far() int { return 4 }\n\nfunc rotateSigningKeys() {}\n")
	for _, w := range []*memory.Workspace{warm, cold} {
		if r := w.ResolveDocumentCached(path, buf, 1); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	compare("unsaved buffer", false)
	for _, w := range []*memory.Workspace{warm, cold} {
		w.ForgetDocument(path)
	}
	compare("closed buffer", false)
}
