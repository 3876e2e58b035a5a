package memory_test

import (
	"context"
	"testing"
)

// BenchmarkForSymbolScale measures ForSymbol on a workspace of N memories
// (scaleN), one per function, after a check (CheckViews, which brings
// the summaries up to date): "summaries" finds the candidates by one
// scan of the summaries (a CLI process), "places" by the place table (a
// daemon's, WarmPlaces). Before #15's follow-up both decoded every
// record.
func BenchmarkForSymbolScale(b *testing.B) {
	n := scaleN(b)
	w, reqs := scaleRepo(b, n)
	defer w.Close()
	ms, errs := w.RememberBatch(context.Background(), reqs)
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.CheckViews(context.Background()); err != nil { // brings summaries up to date
		b.Fatal(err)
	}
	sym := ms[n/2].Anchors[0].Symbol
	if sym == "" {
		b.Fatal("memory has no symbol anchor")
	}
	run := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			got, err := w.ForSymbol(sym)
			if err != nil || len(got) != 1 {
				b.Fatalf("ForSymbol = %d memories, %v", len(got), err)
			}
		}
	}
	b.Run("summaries", run)
	if err := w.WarmPlaces(); err != nil {
		b.Fatal(err)
	}
	b.Run("places", run)
}
