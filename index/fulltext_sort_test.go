package index

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blugelabs/bluge"
	blugesearch "github.com/blugelabs/bluge/search"
)

// TestScoreOrderMatchesBluge checks that a top-n search sorted by
// scoreOrder collects the same documents in the same order, with the same
// scores, as Bluge's default score sort: on an index of several segments
// where many documents tie (identical texts, so equal scores, cut by hit
// number), for limits that cut through the ties and queries of one to
// three terms; and that the keys order scores as the prefix-coded ones do,
// negative, zero and special values included.
func TestScoreOrderMatchesBluge(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bluge")
	f, _, err := OpenFullText(dir, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	texts := []string{"retry the flush", "flush timeout of the retry queue", "retry", "queue of queues", "flush flush retry", "timeout"}
	var gen uint64
	for batch := range 4 { // a segment per batch
		var docs []Doc
		for i := range 60 {
			id := fmt.Sprintf("m%03d", batch*60+i)
			docs = append(docs, Doc{ID: id, Fields: map[string]string{"body": texts[(i*7+batch)%len(texts)], "title": texts[i%3]}})
		}
		gen++
		if err := f.Update(docs, nil, gen); err != nil {
			t.Fatal(err)
		}
	}
	// One snapshot for every search: the writer's merges in the
	// background change Bluge's statistics, and so the scores.
	r, release, err := f.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	collect := func(s *bluge.TopNSearch) (out []Scored) {
		it, err := r.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if err := eachHit(it, func(id string, score float64) { out = append(out, Scored{ID: id, Score: score}) }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, q := range []string{"retry", "flush retry", "timeout queue retry", "queues"} {
		for _, n := range []int{1, 3, 10, 25, 61, 500} {
			query := func() bluge.Query {
				bq := bluge.NewBooleanQuery()
				bq.AddShould(bluge.NewMatchQuery(q).SetField("body").SetAnalyzer(analyzer()))
				bq.AddShould(bluge.NewMatchQuery(q).SetField("title").SetAnalyzer(analyzer()).SetBoost(3))
				return bq
			}
			want := collect(bluge.NewTopNSearch(n, query()))
			got := collect(bluge.NewTopNSearch(n, query()).SortByCustom(scoreOrder()))
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Fatalf("%q, top %d: scoreOrder collected %v, Bluge's default sort %v", q, n, got, want)
			}
		}
	}
	// The keys order as the prefix-coded ones.
	scores := []float64{math.Inf(-1), -3.5, -1e-300, math.Copysign(0, -1), 0, 5e-324, 1e-300, 0.5, 1, 1.0000000000000002, 3.5, 1e300, math.Inf(1)}
	bl := blugesearch.DocumentScore()
	k := &scoreKey{}
	for i := range scores {
		for j := range scores {
			a, b := &blugesearch.DocumentMatch{Score: scores[i]}, &blugesearch.DocumentMatch{Score: scores[j]}
			ka := slices.Clone(k.Value(a))
			kb := slices.Clone(k.Value(b))
			if got, want := compareBytes(ka, kb), compareBytes(bl.Value(a), bl.Value(b)); got != want {
				t.Fatalf("scores %v, %v: key order %d, prefix-coded order %d", scores[i], scores[j], got, want)
			}
		}
	}
}

// compareBytes is bytes.Compare, which the collector's sort uses.
func compareBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}
