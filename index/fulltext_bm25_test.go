package index

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/index/bm25"
)

// bm25Vocab is a small vocabulary with stop words, plurals and case, so
// that analysis (stemming, stop words, lower case) matters.
var bm25Vocab = strings.Fields("flush timeout Flushing retries retry cache caches the of head compaction " +
	"chunk chunks series Series sample samples WAL wal checkpoint query queries label labels is a " +
	"moveFilesToPermanentStorage shortString append appender block blocks index")

// bm25Fields are the test documents' fields and boosts, memory-like.
var bm25Fields = map[string]float64{"title": 3, "tags": 2, "body": 1, "code": 0.5}

func bm25Doc(rng *rand.Rand, id string) Doc {
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			// Skewed draw: low indexes are common.
			w[i] = bm25Vocab[int(float64(len(bm25Vocab))*math.Pow(rng.Float64(), 2))]
		}
		return strings.Join(w, " ")
	}
	return Doc{ID: id, Fields: map[string]string{
		"title": words(1 + rng.Intn(5)), "tags": words(rng.Intn(3)),
		"body": words(rng.Intn(30)), "code": words(rng.Intn(12)),
	}}
}

func bm25Queries(rng *rand.Rand, n int) []Query {
	var qs []Query
	for range n {
		w := make([]string, 1+rng.Intn(4))
		for i := range w {
			w[i] = bm25Vocab[rng.Intn(len(bm25Vocab))]
		}
		text := strings.Join(w, " ")
		texts := []Text{{Text: text, Weight: 1.5}}
		if rng.Intn(2) == 0 {
			texts = []Text{{Text: text, Weight: 1}, {Text: text + " " + w[0], Weight: 0.5}}
		}
		qs = append(qs, Query{Texts: texts, Fields: bm25Fields, Limit: 1 + rng.Intn(40)})
	}
	return qs
}

func bm25Names() []string { return []string{"body", "code", "tags", "title"} }

// sameRanking fails unless got is the top len(want) of all, Bluge's
// ranking of every matching document (best first, ties by id): the same
// scores position by position to within rounding (relative 1e-9), and
// the same ids, where documents of scores equal to rounding may come in
// either order (the sum order differs) and, at the cut, either of them
// may be held.
func sameRanking(t *testing.T, what string, got []bm25.Hit, all []Scored, k int) {
	t.Helper()
	want := all[:min(k, len(all))]
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: %s\ngot  %v\nwant %v", what, fmt.Sprintf(format, args...), got, want)
	}
	if len(got) != len(want) {
		fail("%d hits, want %d", len(got), len(want))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	for i := range got {
		if !near(got[i].Score, want[i].Score) {
			fail("hit %d scores %.17g, want %.17g", i, got[i].Score, want[i].Score)
		}
		// got[i].ID must be among all's documents of that score.
		found := false
		for _, s := range all {
			if s.ID == got[i].ID && near(s.Score, got[i].Score) {
				found = true
				break
			}
		}
		if !found {
			fail("hit %d is %s, not a document of score %.17g", i, got[i].ID, got[i].Score)
		}
	}
	seen := map[string]bool{}
	for _, h := range got {
		if seen[h.ID] {
			fail("%s twice", h.ID)
		}
		seen[h.ID] = true
	}
}

// blugeAll returns Bluge's ranking of every document matching q.
func blugeAll(t *testing.T, ft *FullText, q Query) []Scored {
	t.Helper()
	q.Limit = 100000
	all, err := ft.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestBM25MatchesBluge checks the in-memory BM25 index against Bluge on
// 600 generated documents in four boosted fields: loaded from the Bluge
// index (LoadBM25) and built by Put from the same documents, every one of
// 200 queries (one or two weighted texts, stop words, repeats) returns the
// same ids in the same order with the same scores to rounding as
// FullText.Search, with MaxScore pruning and exhaustively.
func TestBM25MatchesBluge(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var docs []Doc
	for i := range 600 {
		docs = append(docs, bm25Doc(rng, fmt.Sprintf("m%04d", i)))
	}
	ft, _, err := OpenFullText(filepath.Join(t.TempDir(), "bluge"), "1")
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	if err := ft.Rebuild(docs, 1); err != nil {
		t.Fatal(err)
	}
	loaded, err := ft.LoadBM25(context.Background(), bm25Names())
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Len() != len(docs) {
		t.Fatalf("loaded %d documents, want %d", loaded.Len(), len(docs))
	}
	put := bm25.New()
	for _, d := range docs {
		put.Put(d.ID, BM25Fields(d))
	}
	for i, q := range bm25Queries(rng, 200) {
		all := blugeAll(t, ft, q)
		what := fmt.Sprintf("query %d %+v", i, q.Texts)
		cl := BM25Clauses(q)
		sameRanking(t, what+" loaded, pruned", loaded.Search(cl, q.Limit, true), all, q.Limit)
		sameRanking(t, what+" loaded, exhaustive", loaded.Search(cl, q.Limit, false), all, q.Limit)
		sameRanking(t, what+" put, pruned", put.Search(cl, q.Limit, true), all, q.Limit)
	}
}

// TestBM25UpdatesMatchFreshIndex checks that an index kept current by
// Apply (puts of new and changed documents, deletions, enough of them
// to compact on the way) and then compacted ranks as a Bluge index
// rebuilt from the final documents, which holds no deleted documents.
func TestBM25UpdatesMatchFreshIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	live := map[string]Doc{}
	x := bm25.New()
	for round := range 12 {
		docs := map[string][]bm25.Field{}
		var deleted []string
		for range 300 {
			id := fmt.Sprintf("m%04d", rng.Intn(900))
			if _, ok := live[id]; ok && rng.Intn(3) == 0 {
				delete(live, id)
				delete(docs, id)
				deleted = append(deleted, id)
				continue
			}
			d := bm25Doc(rng, id)
			live[id] = d
			docs[id] = BM25Fields(d)
			for i, del := range deleted { // put again after its deletion
				if del == id {
					deleted = append(deleted[:i], deleted[i+1:]...)
					break
				}
			}
		}
		x.Apply(docs, deleted)
		if x.Len() != len(live) {
			t.Fatalf("round %d: %d documents, want %d", round, x.Len(), len(live))
		}
	}
	x.Compact()
	var final []Doc
	for _, d := range live {
		final = append(final, d)
	}
	ft, _, err := OpenFullText(filepath.Join(t.TempDir(), "bluge"), "1")
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	if err := ft.Rebuild(final, 1); err != nil {
		t.Fatal(err)
	}
	for i, q := range bm25Queries(rng, 150) {
		sameRanking(t, fmt.Sprintf("query %d %+v", i, q.Texts), x.Search(BM25Clauses(q), q.Limit, true), blugeAll(t, ft, q), q.Limit)
	}
}

// TestBM25LoadedAfterUpdates checks that an index loaded from a Bluge
// index that took updates and deletions in many batches (segments
// merged or not, deleted documents still counted in its statistics)
// ranks exactly as that Bluge index does once reopened: LoadBM25 takes
// Bluge's field statistics.
func TestBM25LoadedAfterUpdates(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	dir := filepath.Join(t.TempDir(), "bluge")
	ft, _, err := OpenFullText(dir, "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.Rebuild(nil, 0); err != nil { // records the schema
		t.Fatal(err)
	}
	live := map[string]bool{}
	for round := range 30 {
		var docs []Doc
		var deleted []string
		seen := map[string]bool{}
		for range 40 {
			id := fmt.Sprintf("m%04d", rng.Intn(500))
			if seen[id] {
				continue
			}
			seen[id] = true
			if live[id] && rng.Intn(4) == 0 {
				deleted = append(deleted, id)
				delete(live, id)
				continue
			}
			docs = append(docs, bm25Doc(rng, id))
			live[id] = true
		}
		if err := ft.Update(docs, deleted, uint64(round+1)); err != nil {
			t.Fatal(err)
		}
	}
	// Reopened, the index is read without a writer: no merge (which
	// changes Bluge's statistics) runs between the load and the searches.
	if err := ft.Close(); err != nil {
		t.Fatal(err)
	}
	ft, ok, err := OpenFullText(dir, "1")
	if err != nil || !ok || ft.writer != nil {
		t.Fatalf("reopen: ok %v, writer %v, %v", ok, ft.writer != nil, err)
	}
	defer ft.Close()
	x, err := ft.LoadBM25(context.Background(), bm25Names())
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(live) {
		t.Fatalf("loaded %d documents, want %d", x.Len(), len(live))
	}
	for i, q := range bm25Queries(rng, 150) {
		sameRanking(t, fmt.Sprintf("query %d %+v", i, q.Texts), x.Search(BM25Clauses(q), q.Limit, true), blugeAll(t, ft, q), q.Limit)
	}
}
