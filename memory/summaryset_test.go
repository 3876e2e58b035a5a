package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// TestSummarySetEachIsViews: SummarySet.Each gives the views Views
// gives, in the same order, although it reuses their memory (views with
// and without anchors and tags, binary and JSON summaries, more than a
// few blocks), and stops at fn's first error.
func TestSummarySetEachIsViews(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	w, err := Open(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	rng := rand.New(rand.NewPCG(5, 6))
	b := w.Store.NewMemoryBatch()
	const n = 3*eachBlock + 2*viewBlock + 11
	for i := range n {
		v := View{ID: fmt.Sprintf("01J%023d", i), Type: "note", Title: fmt.Sprintf("title %d", i), Body: "body <&>\n",
			Scope: ScopeProject, Source: "user", CreatedAt: time.Unix(int64(i), 0).UTC(), Stale: i%5 == 0}
		for range rng.IntN(3) {
			v.Tags = append(v.Tags, fmt.Sprintf("t%d", rng.IntN(9)))
		}
		for k := range rng.IntN(4) {
			v.Anchors = append(v.Anchors, AnchorView{Path: fmt.Sprintf("p%d.go", rng.IntN(20)), Symbol: fmt.Sprintf("s%d", k),
				Kind: "symbol", StartLine: rng.IntN(50) + 1, EndLine: 60, Status: "fresh", OriginPath: "o.go"})
		}
		data := mustEncodeSummary(t, v)
		if i%97 == 0 { // a summary of an older gloss
			if data, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.PutSummary(v.ID, data); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	set, err := w.ReadSummaries()
	if err != nil {
		t.Fatal(err)
	}
	want, err := set.Views()
	if err != nil || len(want) != n {
		t.Fatalf("Views: %d views, %v", len(want), err)
	}
	if set, err = w.ReadSummaries(); err != nil {
		t.Fatal(err)
	}
	if set.Len() != n {
		t.Fatalf("Len %d, want %d", set.Len(), n)
	}
	var got []View
	err = set.Each(func(v *View) error {
		c := *v
		c.Anchors, c.Tags = slices.Clone(v.Anchors), slices.Clone(v.Tags)
		got = append(got, c)
		return nil
	})
	if err != nil || len(got) != n {
		t.Fatalf("Each: %d views, %v", len(got), err)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("view %d: Each %+v, Views %+v", i, got[i], want[i])
		}
	}
	if set.Len() != 0 || set.Each(func(*View) error { return errors.New("called") }) != nil {
		t.Fatal("a set read twice")
	}
	if set, err = w.ReadSummaries(); err != nil {
		t.Fatal(err)
	}
	stop, calls := errors.New("stop"), 0
	err = set.Each(func(*View) error {
		if calls++; calls == eachBlock+5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != eachBlock+5 {
		t.Fatalf("Each after fn's error: %v, %d calls", err, calls)
	}
}
