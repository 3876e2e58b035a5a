package bm25

import (
	"fmt"
	"math/rand"
	"testing"
)

// BenchmarkSearchZipf measures one top-20 MaxScore search of three terms
// in two boosted fields (as the daemon's text ranker asks, issue #15)
// over 100,000 documents whose terms follow Zipf's law over 300 terms
// (zipfDoc), so the frequent terms' posting lists are tens of thousands
// long.
func BenchmarkSearchZipf(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	z := rand.NewZipf(rng, 1.1, 1, 299)
	x := New()
	docs := map[string][]Field{}
	for i := range 100_000 {
		docs[fmt.Sprintf("d%06d", i)] = zipfDoc(z, rng)
	}
	x.Apply(docs, nil)
	queries := make([][]Clause, 64)
	for i := range queries {
		for range 3 {
			term := fmt.Sprintf("t%d", z.Uint64())
			queries[i] = append(queries[i], Clause{Field: "title", Term: term, Weight: 9}, Clause{Field: "body", Term: term, Weight: 1})
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = x.Search(queries[i%len(queries)], 20, true)
	}
}
