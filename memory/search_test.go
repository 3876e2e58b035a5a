package memory

import (
	"context"
	"fmt"
	"testing"

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
