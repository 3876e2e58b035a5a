package memory

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/index"
)

// TestSavedTextIndex checks the saved text index: none is used before a
// warm-up writes it; once written (WarmText), a process that never
// warmed ranks from it (savedTextRanking answers) exactly as the
// in-memory index loaded from the same Bluge snapshot (ids, order,
// scores to the last bit), and like Bluge up to the order of scores tied
// within 1e-12 relative (the fixture has exact ties: memories of the
// same text, which this checks Bluge and the saved index order alike as
// sets); with every data block corrupted it is not used and the ranking
// is Bluge's exactly; after a write (remember) it is stale, not used,
// and the ranking is Bluge's, new memory included.
func TestSavedTextIndex(t *testing.T) {
	repo := vecRepo(t)
	w := openVecWorkspace(t, repo, "none", nil)
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		sym, text := wordNote(i)
		if i >= 20 {
			text = "flush timeout twin" // ten memories of equal score
		}
		remember(t, w, sym, text)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	queries := []string{"retries capped", "pool opened lazily", "flush timeout caches", "openPool", "retryCap timeout", "note", "twin", "nothing matches this"}
	w = openVecWorkspace(t, repo, "none", nil)
	path := filepath.Join(w.Dir, savedTextFile)
	if _, ok := w.savedTextRanking("retries", 10); ok {
		t.Fatal("a saved index answers before any warm-up")
	}
	if err := w.WarmText(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("warm-up wrote no saved index: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// A process without a daemon.
	w = openVecWorkspace(t, repo, "none", nil)
	defer w.Close()
	d, err := w.searchIndex()
	if err != nil {
		t.Fatal(err)
	}
	ft := d.(*index.FullText)
	x, err := ft.LoadBM25(ctx, slices.Sorted(maps.Keys(searchFields)))
	if err != nil {
		t.Fatal(err)
	}
	ties := 0
	for _, q := range queries {
		for _, n := range []int{3, 10, 40} {
			saved, ok := w.savedTextRanking(q, n)
			if !ok {
				t.Fatalf("%q: saved index not used", q)
			}
			got, err := w.textRanking(ctx, q, n)
			if err != nil {
				t.Fatal(err)
			}
			want := x.Search(index.BM25Clauses(TextQuery(q, n)), n, true)
			if fmt.Sprint(got) != fmt.Sprint(saved) || len(got) != len(want) {
				t.Fatalf("%q: text ranking %v, saved %v, in-memory %v", q, got, saved, want)
			}
			for i := range want {
				if got[i].ID != want[i].ID || math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
					t.Fatalf("%q n %d hit %d: saved %v, in-memory %v", q, n, i, got[i], want[i])
				}
			}
			all, err := ft.Search(ctx, TextQuery(q, 1000))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != min(n, len(all)) {
				t.Fatalf("%q n %d: %d hits, Bluge %d", q, n, len(got), len(all))
			}
			for i, h := range got {
				b := all[i].Score
				if math.Abs(h.Score-b) > 1e-12*b {
					t.Fatalf("%q n %d hit %d: saved %v, Bluge %v", q, n, i, h, all[i])
				}
				// h is among Bluge's hits of its score.
				found := false
				for _, a := range all {
					found = found || a.ID == h.ID && math.Abs(a.Score-h.Score) <= 1e-12*b
				}
				if !found {
					t.Fatalf("%q n %d hit %d: %v not among Bluge's %v", q, n, i, h, all)
				}
				if i > 0 && h.Score == got[i-1].Score {
					ties++
				}
			}
		}
	}
	if ties == 0 {
		t.Fatal("the fixture has no tied scores")
	}

	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Every data block corrupted (bytes between the magic and the
	// directory, whose offset the footer gives).
	bad := slices.Clone(good)
	dirOff := binary.LittleEndian.Uint64(bad[len(bad)-24:])
	for i := uint64(8); i < dirOff; i++ {
		bad[i] ^= 0x5a
	}
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if _, ok := w.savedTextRanking(q, 10); ok && q != "nothing matches this" {
			t.Fatalf("%q: a corrupt saved index answers", q)
		}
		got, err := w.textRanking(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ft.Search(ctx, TextQuery(q, 10))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q with a corrupt saved index: %v, Bluge %v", q, got, want)
		}
	}

	// A write makes it stale.
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.savedTextRanking("twin", 10); !ok {
		t.Fatal("restored saved index not used")
	}
	id := remember(t, w, "openPool", "twin pools drain")
	if _, ok := w.savedTextRanking("twin", 10); ok {
		t.Fatal("a stale saved index answers after a write")
	}
	// Bluge merges segments in the background, and a merge changes its
	// BM25 statistics (index/bm25: Builder.Stats): the ranking is
	// compared with a Bluge search that the same search right after it
	// gives again, so that no merge fell between them.
	var got, want []index.Scored
	for try := 0; ; try++ {
		if want, err = ft.Search(ctx, TextQuery("twin drain", 40)); err != nil {
			t.Fatal(err)
		}
		if got, err = w.textRanking(ctx, "twin drain", 40); err != nil {
			t.Fatal(err)
		}
		again, err := ft.Search(ctx, TextQuery("twin drain", 40))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(again) == fmt.Sprint(want) || try == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 || got[0].ID != id {
		t.Fatalf("after a write: %v, Bluge %v (want %s first)", got, want, id)
	}
}
