package bm25

import (
	"fmt"
	"math/rand"
	"testing"
)

// zipfDoc returns fields of random terms drawn by Zipf's law over 300
// terms, so that some posting lists are long and others short, as
// MaxScore meets them.
func zipfDoc(z *rand.Zipf, rng *rand.Rand) []Field {
	var out []Field
	for _, name := range []string{"title", "body"} {
		n := 1 + rng.Intn(map[string]int{"title": 6, "body": 40}[name])
		freqs := map[string]int{}
		for range n {
			freqs[fmt.Sprintf("t%d", z.Uint64())]++
		}
		out = append(out, Field{Name: name, Length: n, Freqs: freqs})
	}
	return out
}

// TestPruningMatchesExhaustive checks that MaxScore returns exactly the
// exhaustive evaluation's top k (ids, order and scores to the last bit)
// on 3,000 documents through puts, replacements and deletions, across
// compactions (which it checks happened), for queries of one to eight
// terms in two boosted fields and k from 1 to 50.
func TestPruningMatchesExhaustive(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	z := rand.NewZipf(rng, 1.1, 1, 299)
	x := New()
	compactions := 0
	for round := range 10 {
		docs := map[string][]Field{}
		var deleted []string
		for range 800 {
			id := fmt.Sprintf("d%04d", rng.Intn(3000))
			if rng.Intn(4) == 0 {
				if _, ok := docs[id]; !ok {
					deleted = append(deleted, id)
				}
				continue
			}
			docs[id] = zipfDoc(z, rng)
		}
		before := len(x.ids)
		x.Apply(docs, deleted)
		if len(x.ids) < before {
			compactions++
		}
		for q := range 40 {
			var cl []Clause
			for range 1 + rng.Intn(8) {
				term := fmt.Sprintf("t%d", z.Uint64())
				cl = append(cl, Clause{Field: "title", Term: term, Weight: 9}, Clause{Field: "body", Term: term, Weight: 1})
			}
			k := 1 + rng.Intn(50)
			got, want := x.Search(cl, k, true), x.Search(cl, k, false)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d query %d k %d:\npruned     %v\nexhaustive %v", round, q, k, got, want)
			}
		}
	}
	if compactions == 0 {
		t.Fatal("no compaction happened")
	}
	if x.Len() != len(x.num) || x.dead != len(x.ids)-len(x.num) {
		t.Fatalf("counts: %d live, %d dead, %d numbers", x.Len(), x.dead, len(x.ids))
	}
}
