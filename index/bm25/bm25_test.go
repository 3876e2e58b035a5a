package bm25

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
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
		out = append(out, FieldOf(name, n, freqs))
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

// oldTermScore is TermScore as written before the norm tables (one
// expression per posting), the reference of TestNormTableScores.
func oldTermScore(weight float64, tf, docLen uint32, avgLen float64) float64 {
	normInverse := 1 / (K1 * ((1 - B) + B*float64(docLen)/avgLen))
	return weight - weight/(1+float64(tf)*normInverse)
}

// TestNormTableScores checks that searches scoring from the per-field
// norm tables give every document exactly (to the last bit) the sum of
// oldTermScore over the query's clauses, on random documents of
// lengths 1 to 40 and a few longer than maxNormTable (scored without the
// table), before and after more documents change the average lengths
// (so the tables are rebuilt), and with an index built by Builder.
func TestNormTableScores(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	z := rand.NewZipf(rng, 1.1, 1, 99)
	x := New()
	docs := map[string][]Field{}
	put := func(n int) {
		for range n {
			id := fmt.Sprintf("d%05d", len(docs))
			f := zipfDoc(z, rng)
			if rng.Intn(100) == 0 {
				f[1].Length = maxNormTable + rng.Intn(3*maxNormTable)
			}
			docs[id] = f
			x.Put(id, f)
		}
	}
	check := func(x *Index, stage string) {
		t.Helper()
		for q := range 30 {
			var cl []Clause
			for range 1 + rng.Intn(5) {
				term := fmt.Sprintf("t%d", z.Uint64())
				cl = append(cl, Clause{Field: "title", Term: term, Weight: 4}, Clause{Field: "body", Term: term, Weight: 1 + rng.Float64()})
			}
			want := map[string]float64{}
			for _, c := range cl {
				f := x.fields[c.Field]
				p := f.terms[c.Term]
				if p == nil {
					continue
				}
				w := c.Weight * Idf(uint64(len(p.docs)), uint64(f.docs))
				avg := float64(f.sumLen) / float64(f.docs)
				for id, fs := range docs {
					for _, fd := range fs {
						for _, ttf := range fd.Terms {
							if fd.Name == c.Field && ttf.Term == c.Term && ttf.TF > 0 {
								want[id] += oldTermScore(w, uint32(ttf.TF), uint32(fd.Length), avg)
							}
						}
					}
				}
			}
			// Clauses are distinct per (field, term) only when the query
			// repeats no term; merged weights change the reference's sums.
			seen := map[string]bool{}
			dup := false
			for _, c := range cl {
				dup = dup || seen[c.Field+"\x00"+c.Term]
				seen[c.Field+"\x00"+c.Term] = true
			}
			if dup {
				continue
			}
			got := x.Search(cl, len(docs), false)
			if len(got) != len(want) {
				t.Fatalf("%s query %d: %d hits, want %d", stage, q, len(got), len(want))
			}
			for _, h := range got {
				if math.Float64bits(h.Score) != math.Float64bits(want[h.ID]) {
					t.Fatalf("%s query %d: %s scored %v, want %v", stage, q, h.ID, h.Score, want[h.ID])
				}
			}
		}
	}
	put(2000)
	check(x, "first")
	table := x.fields["body"].norms.Load()
	if table == nil || len(table.inv) != maxNormTable {
		t.Fatalf("body's norm table: %+v", table)
	}
	put(500)
	check(x, "after more documents")
	if x.fields["body"].norms.Load() == table {
		t.Fatal("body's norm table not rebuilt for its new average length")
	}
	// The same documents through Builder.
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	b := NewBuilder(ids, []string{"title", "body"})
	type posting struct {
		doc         int
		tf, length  uint32
		field, term string
	}
	var ps []posting
	for i, id := range ids {
		for _, fd := range docs[id] {
			for _, ttf := range fd.Terms {
				ps = append(ps, posting{i, uint32(ttf.TF), uint32(fd.Length), fd.Name, ttf.Term})
			}
		}
	}
	for _, p := range ps {
		b.Posting(p.field, p.term, uint32(p.doc), p.tf, p.length)
	}
	check(b.Index(), "built")
}
