package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
)

const searchGo = `package store

// Save writes the record.
func Save(r string) error {
	return moveFilesToPermanentStorage(r)
}

func moveFilesToPermanentStorage(r string) error {
	alertOperators(r)
	return nil
}

func alertOperators(r string) {}
`

// Full text: stop words, stemming, identifiers split in bodies and in the
// anchored code.
func TestSearchAnalyzer(t *testing.T) {
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/store\n", "store.go": searchGo})
	testutil.Commit(t, repo, "init")
	w, err := Open(repo, Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := w.Remember(ctx, RememberRequest{Text: "Retries must call uploadToColdStorage once", Title: "One upload per write", Path: repo + "/store.go", StartLine: 3, EndLine: 6})
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Remember(ctx, RememberRequest{Text: "On-call gets paged when this fails", Title: "Paging", Path: repo + "/store.go", StartLine: 8, EndLine: 11})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  string // "" for no hits
	}{
		{"the", ""},                 // a stop word finds nothing
		{"cold", a.ID},              // identifier words in the body
		{"saves", a.ID},             // stemming: the symbol Save
		{"alerts", b.ID},            // alertOperators in the anchored code
		{"page", b.ID},              // paged → page
		{"permanent storage", b.ID}, // the anchored symbol's words
	} {
		hits, err := w.Search(ctx, tc.query, 5)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && len(hits) > 0:
			t.Errorf("search %q: %d hits, want none", tc.query, len(hits))
		case tc.want != "" && !found(hits, tc.want):
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%s %q %.2f", h.Memory.ID, h.Memory.Title, h.Score))
			}
			t.Errorf("search %q: hits %v, want %s among them", tc.query, got, tc.want)
		}
	}
}

func found(hits []SearchHit, id string) bool {
	for _, h := range hits {
		if h.Memory.ID == id {
			return true
		}
	}
	return false
}

// The full-text index is rebuilt when its generation differs from the
// store's (a write the index missed), and kept when they are equal.
func TestSearchIndexGeneration(t *testing.T) {
	home := testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/store\n", "store.go": searchGo})
	testutil.Commit(t, repo, "init")
	ctx := context.Background()
	open := func() *Workspace {
		w, err := Open(repo, Options{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := open()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := w.Remember(ctx, RememberRequest{Text: "Retries are capped at three", Title: "Retry cap", Path: repo + "/store.go", StartLine: 3, EndLine: 6})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil || gen == 0 {
		t.Fatalf("generation %d, %v", gen, err)
	}
	w.Close()
	dir := filepath.Join(w.Dir, memoryTextDir)
	base := filepath.Join(dir, "base.bm25")
	for _, tc := range []struct {
		name  string
		setup func() // the index's state before opening
	}{
		{"in step", func() {}},
		{"behind", func() { // an empty index a write behind
			ft, _, err := index.OpenBM25Text(dir, searchSchema)
			if err == nil {
				err = ft.Rebuild(nil, gen-1)
			}
			if err == nil {
				err = ft.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
		}},
		{"unknown", func() {
			if err := os.WriteFile(base, []byte("not an index"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		tc.setup()
		w := open()
		hits, err := w.Search(ctx, "capped", 5)
		w.Close()
		if err != nil || len(hits) != 1 || hits[0].Memory.ID != m.ID {
			t.Fatalf("%s: hits %v, %v", tc.name, hits, err)
		}
		ft, ok, err := index.OpenBM25Text(dir, searchSchema)
		if err != nil || !ok {
			t.Fatalf("%s: index after opening: ok %v, %v", tc.name, ok, err)
		}
		if g, _ := ft.Generation(); g != gen {
			t.Errorf("%s: index generation %d after opening, want %d", tc.name, g, gen)
		}
		_ = ft.Close()
	}
}
