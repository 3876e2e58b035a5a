package memory_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// exactMatchFiles is a small vector-search package after
// kelindar/search's index.go (MIT), where the real-repository pass of
// docs/eval.md ("2026-11-27: real-repository pass") found an exact text
// match ranked third.
var exactMatchFiles = map[string]string{
	"go.mod": "module example.com/search\n\ngo 1.22\n",
	"index.go": `package search

import (
	"math"
	"sort"
)

// Vector is a vector of float32.
type Vector []float32

// Result is one search result.
type Result struct {
	Value     string
	Relevance float64
}

type entry struct {
	Vector Vector
	Value  string
}

// Index is a brute-force search index.
type Index struct {
	arr []entry
}

// NewIndex creates a new search index.
func NewIndex() *Index {
	return &Index{arr: make([]entry, 0, 512)}
}

// Add adds a new vector to the search index.
func (idx *Index) Add(vx Vector, item string) {
	normalize(vx)
	idx.arr = append(idx.arr, entry{
		Vector: vx,
		Value:  item,
	})
}

// Search searches the index for the k-nearest neighbors of the query vector.
func (idx *Index) Search(query Vector, k int) []Result {
	if k <= 0 {
		return nil
	}

	// Normalize the query vector
	normalize(query)

	dst := make(minheap, 0, k)
	for _, v := range idx.arr {
		r := dot(query, v.Vector)
		switch {
		case dst.Len() < k:
			dst = append(dst, Result{Value: v.Value, Relevance: r})
		case r > dst[0].Relevance:
			dst[0] = Result{Value: v.Value, Relevance: r}
		}
	}

	// Sort the results by relevance
	sort.Sort(&dst)
	return dst
}

// Normalize normalizes the vector, resulting in a unit vector. This allows us
// to do a simple dot product to calculate the cosine similarity instead of
// the full cosine distance.
func normalize(v []float32) {
	norm := float32(0)
	for _, x := range v {
		norm += x * x
	}
	norm = float32(math.Sqrt(float64(norm)))
	for i := range v {
		v[i] /= norm
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

type minheap []Result

func (h minheap) Len() int           { return len(h) }
func (h minheap) Less(i, j int) bool { return h[i].Relevance > h[j].Relevance }
func (h minheap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
`,
	"cosine.go": `package search

// Cosine returns the cosine similarity of a and b, with SIMD when available.
func Cosine(a, b []float32) float64 {
	return dot(a, b)
}
`,
	"example/main.go": `package main

import (
	"fmt"
	"os"
)

func main() {
	data, err := os.ReadFile("dataset.bin")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(data))
}
`,
}

// TestFusedSearchExactTextMatchFirst is the case found by the
// real-repository pass: a memory whose title and body hold the query
// ("Search normalizes the query in place", written through MCP: source
// agent, trust 0.9) is first in the text and the vector list, while two
// memories whose own words do not match are found through the
// identifiers of their anchored code (normalize(vx) in Add; BM25 about a
// hundredth of the first hit's). Among nine memories every one is on
// both lists, and with RRF k 60 the ranks 1+1 against 3+4 differ by less
// than the trust factor: the exact match came third there (fifth here).
// Under BuiltinFusion (k BuiltinRRFK) no code-only memory ranks above it
// (a memory matching the query in its own words, "Add stores the vector
// as given (no normalization)", still may); at k 60 they do, which the
// test asserts as the documented old behaviour.
func TestFusedSearchExactTextMatchFirst(t *testing.T) {
	w, repo := indexedWorkspace(t, exactMatchFiles)
	ctx := context.Background()
	reqs := []memory.RememberRequest{
		{Text: "The example loads a dataset from disk", Path: filepath.Join(repo, "example", "main.go"), StartLine: 1, EndLine: 9},
		{Text: "newRetry mentions nothing; NewIndex preallocates 512 entries", Symbol: "NewIndex"},
		{Text: "y1 plus blank", Path: filepath.Join(repo, "index.go"), StartLine: 31, EndLine: 39},
		{Text: "Add stores the vector as given (no normalization)", Type: "gotcha", Symbol: "Index.Add"},
		{Text: "ok line", Symbol: "Index.Add"},
		{Text: "Search keeps a k-sized min-heap of results; relevance is cosine", Type: "decision", Path: filepath.Join(repo, "index.go"), StartLine: 41, EndLine: 64},
		{Text: "Search normalizes the query in place: callers' slices are modified", Type: "gotcha", Symbol: "Index.Search", Source: "agent"},
		{Text: "Heap ordering: Less compares relevance descending", Symbol: "minheap.Less"},
		{Text: "Cosine dispatches to SIMD when available", Symbol: "Cosine"},
	}
	// codeOnly are the memories whose own words hold no query term:
	// found through the identifiers of their anchored code only.
	codeOnly := map[string]bool{"y1 plus blank": true, "ok line": true, "Search keeps a k-sized min-heap of results; relevance is cosine": true}
	var want string
	below := map[string]bool{} // ids of codeOnly
	for _, r := range reqs {
		m, err := w.Remember(ctx, r)
		if err != nil {
			t.Fatalf("remember %q: %v", r.Text, err)
		}
		if r.Source == "agent" {
			want = m.ID
		}
		if codeOnly[r.Text] {
			below[m.ID] = true
		}
	}
	// above returns how many code-only memories rank above the exact
	// match under p.
	above := func(p memory.FusionProfile) int {
		res, err := w.FusedSearch(ctx, memory.SearchRequest{Query: "normalizes the query", Kind: memory.ResultMemory, Fusion: &p})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range res {
			if r.Memory.ID == want {
				return n
			}
			if below[r.Memory.ID] {
				n++
			}
		}
		t.Fatalf("the exact match is not among the %d results", len(res))
		return 0
	}
	if n := above(memory.BuiltinFusion); n != 0 {
		t.Errorf("%d memories matched only through their code rank above the exact match under %+v", n, memory.BuiltinFusion)
	}
	old := memory.BuiltinFusion
	old.RRFK = memory.RRFK
	if n := above(old); n == 0 {
		t.Errorf("with RRF k %d no memory matched only through its code ranks above the exact match: the case no longer reproduces", memory.RRFK)
	}
}
