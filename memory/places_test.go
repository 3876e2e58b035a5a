package memory

import (
	"context"
	"sort"
	"strings"
	"testing"
)

// TestPlaceTable checks that the warmed place table answers for the
// store's generation, follows remember and forget (its places and its
// symbol -> ids index, withSymbols), and is dropped when a write passes
// it by; and that the graph ranker reads it.
func TestPlaceTable(t *testing.T) {
	w := openVecWorkspace(t, vecRepo(t), "none", nil)
	defer w.Close()
	if _, err := w.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	id1 := remember(t, w, "retryCap", "retries are capped at three")
	gen := func() uint64 {
		g, err := w.Store.MemoryGeneration()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if _, _, answers := w.places.lookup(id1, gen()); answers {
		t.Fatal("a table never warmed answers")
	}
	if err := w.WarmPlaces(); err != nil {
		t.Fatal(err)
	}
	ps, found, answers := w.places.lookup(id1, gen())
	if !answers || !found || len(ps) != 1 || !strings.Contains(ps[0].symbol, "retryCap") || ps[0].path != "a.go" {
		t.Fatalf("after warming: %v found %v answers %v", ps, found, answers)
	}
	retrySym := ps[0].symbol
	bySym := func(syms ...string) string {
		t.Helper()
		set := map[string]bool{}
		for _, s := range syms {
			set[s] = true
		}
		ids, ok := w.places.withSymbols(set, gen())
		if !ok {
			t.Fatal("withSymbols does not answer")
		}
		sort.Strings(ids)
		return strings.Join(ids, ",")
	}
	if got := bySym(retrySym); got != id1 {
		t.Fatalf("withSymbols(retryCap) = %q, want %s", got, id1)
	}
	id2 := remember(t, w, "openPool", "the pool is opened lazily")
	ps2, found, answers := w.places.lookup(id2, gen())
	if !answers || !found || !strings.Contains(ps2[0].symbol, "openPool") {
		t.Fatalf("after remember: %v found %v answers %v", ps2, found, answers)
	}
	want := []string{id1, id2}
	sort.Strings(want)
	if got := bySym(retrySym, ps2[0].symbol, "no-such-symbol"); got != strings.Join(want, ",") {
		t.Fatalf("withSymbols(both) = %q, want %v", got, want)
	}
	seeds, err := w.QuerySymbols("openPool")
	if err != nil || len(seeds) != 1 {
		t.Fatalf("seeds %v, %v", seeds, err)
	}
	hits, err := w.graphRank(seeds, nil)
	if err != nil || len(hits) == 0 || hits[0].id != id2 || hits[0].proximity != ProximitySymbol {
		t.Fatalf("graph ranking %+v, %v; want %s first at %g", hits, err, id2, ProximitySymbol)
	}
	if _, err := w.Forget(id1); err != nil {
		t.Fatal(err)
	}
	if _, found, answers := w.places.lookup(id1, gen()); !answers || found {
		t.Fatalf("after forget: found %v answers %v", found, answers)
	}
	if got := bySym(retrySym); got != "" {
		t.Fatalf("after forget: withSymbols(retryCap) = %q, want none", got)
	}
	w.places.update(nil, nil, gen()+2) // a write the table did not see
	if _, _, answers := w.places.lookup(id2, gen()+2); answers {
		t.Fatal("a table that missed a write still answers")
	}
}
