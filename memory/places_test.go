package memory

import (
	"context"
	"strings"
	"testing"
)

// TestPlaceTable checks that the warmed place table answers for the
// store's generation, follows remember and forget, and is dropped when a
// write passes it by; and that the graph ranker reads it.
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
	id2 := remember(t, w, "openPool", "the pool is opened lazily")
	if ps, found, answers := w.places.lookup(id2, gen()); !answers || !found || !strings.Contains(ps[0].symbol, "openPool") {
		t.Fatalf("after remember: %v found %v answers %v", ps, found, answers)
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
	w.places.update(nil, nil, gen()+2) // a write the table did not see
	if _, _, answers := w.places.lookup(id2, gen()+2); answers {
		t.Fatal("a table that missed a write still answers")
	}
}
