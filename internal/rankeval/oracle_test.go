package rankeval

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// oracleEmbedder is an OpenAI-compatible /v1/embeddings server standing
// in for a strong embedder whose quality is set by the test: memory i
// (recognised by the first line of its vector text, "type: title") is
// the axis e_i plus a small shared component; a golden query puts its
// relevant memories at vector rank rank (behind rank−1 neighbours) and
// 20 more neighbours after them. Neighbours come from the text ranker's
// top non-relevant hits first when bm25Neighbours is set (the hard case
// for fusion: those memories are on both lists), else in a fixed
// pseudo-random order. Any other text gets the shared axis alone, so
// every memory has a positive cosine with it.
type oracleEmbedder struct {
	row     map[string]int // "type: title" → axis
	keyRow  map[string]int // memory key → axis
	keys    []string
	queries map[string]Query

	mu             sync.Mutex
	rank           int
	bm25Neighbours bool
	bm25           map[string][]string // query text → text ranker's keys
}

func newOracleEmbedder(specs []MemorySpec, queries []Query) *oracleEmbedder {
	o := &oracleEmbedder{row: map[string]int{}, keyRow: map[string]int{}, queries: map[string]Query{}, rank: 1}
	for i, s := range specs {
		o.row[s.Type+": "+s.Title] = i
		o.keyRow[s.Key] = i
		o.keys = append(o.keys, s.Key)
	}
	for _, q := range queries {
		o.queries[q.Text] = q
	}
	return o
}

func (o *oracleEmbedder) dim() int { return len(o.keys) + 1 }

func (o *oracleEmbedder) embed(text string) []float32 {
	v := make([]float32, o.dim())
	shared := o.dim() - 1
	first, _, _ := strings.Cut(text, "\n")
	if i, ok := o.row[first]; ok {
		v[i], v[shared] = 1, 0.05
		return v
	}
	q, ok := o.queries[strings.TrimSpace(text)]
	if !ok {
		v[shared] = 1
		return v
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	rel := set(q.Relevant)
	var neighbours []string
	if o.bm25Neighbours {
		for _, k := range o.bm25[q.Text] {
			if !rel[k] {
				neighbours = append(neighbours, k)
			}
		}
	}
	var rest []string
	for _, k := range o.keys {
		if !rel[k] {
			rest = append(rest, k)
		}
	}
	h := func(k string) uint32 { f := fnv.New32a(); f.Write([]byte(q.Text + "\x00" + k)); return f.Sum32() }
	sort.Slice(rest, func(a, b int) bool { return h(rest[a]) < h(rest[b]) })
	neighbours = append(neighbours, rest...)
	used := map[string]bool{}
	w := float32(1)
	place := func(k string) { v[o.keyRow[k]], used[k] = w, true; w -= 0.01 }
	next := func() string {
		for _, k := range neighbours {
			if !used[k] {
				return k
			}
		}
		return ""
	}
	for range o.rank - 1 {
		place(next())
	}
	for _, k := range q.Relevant {
		place(k)
	}
	for range 20 {
		place(next())
	}
	v[shared] = 0.01
	return v
}

func (o *oracleEmbedder) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	type datum struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	var out struct {
		Data []datum `json:"data"`
	}
	for i, s := range req.Input {
		out.Data = append(out.Data, datum{o.embed(s), i})
	}
	_ = json.NewEncoder(rw).Encode(out)
}

// TestFusionOracleReport measures what fusion makes of a strong vector
// list, independently of any model: with the oracle embedder (an
// OpenAI-compatible server on the loopback address) every query's
// relevant memories sit at vector rank 1 or 3, behind and among
// pseudo-random neighbours or the text ranker's own hits. It prints
// recall@5 of the vector list and recall@5 / MRR@10 of the fused list per
// query kind and half (go test ./internal/rankeval -run
// TestFusionOracleReport -v; docs/eval.md).
func TestFusionOracleReport(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("prints a report; run with -v")
	}
	specs := parseFile(t, "memories.txt", ParseMemories)
	o := newOracleEmbedder(specs, parseFile(t, "queries.txt", ParseQueries))
	srv := httptest.NewServer(o)
	defer srv.Close()
	f := loadFixture(t, "openai:oracle@"+srv.URL)
	ctx := context.Background()
	f.waitVectors(t, 2*time.Minute)
	bm25, err := Run(ctx, f.w, BM25, f.queries, f.keyOf)
	if err != nil {
		t.Fatal(err)
	}
	o.bm25 = map[string][]string{}
	for _, r := range bm25 {
		o.bm25[r.Query.Text] = r.Ranked
	}
	var b strings.Builder
	b.WriteString("| neighbours | vector rank | query kind | vector recall@5 | fused recall@5 | fused MRR@10 |\n| --- | ---: | --- | ---: | ---: | ---: |\n")
	for _, bm := range []bool{false, true} {
		for _, rank := range []int{1, 3} {
			o.mu.Lock()
			o.rank, o.bm25Neighbours = rank, bm
			o.mu.Unlock()
			vec, err := Run(ctx, f.w, Vector, f.queries, f.keyOf)
			if err != nil {
				t.Fatal(err)
			}
			fused, err := Run(ctx, f.w, Fused, f.queries, f.keyOf)
			if err != nil {
				t.Fatal(err)
			}
			neigh := "random"
			if bm {
				neigh = "BM25 hits"
			}
			for _, k := range Kinds {
				vt, vh := SplitHalves(vec, k)
				ft, fh := SplitHalves(fused, k)
				for _, half := range []struct {
					name string
					v, f []Result
				}{{"tune", vt, ft}, {"heldout", vh, fh}} {
					vm, fm := Summarize(half.v)[k], Summarize(half.f)[k]
					fmt.Fprintf(&b, "| %s | %d | %s-%s | %.3f | %.3f | %.3f |\n", neigh, rank, k, half.name, vm.RecallAt5, fm.RecallAt5, fm.MRRAt10)
				}
			}
		}
	}
	fmt.Printf("\nfusion with an oracle embedder (%d memories, %d queries)\n\n%s\n", len(f.byKey), len(f.queries), b.String())
}
