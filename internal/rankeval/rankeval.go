// Package rankeval evaluates memory retrieval against a hand-written
// golden set (issue #15): a fixture repository (testdata/repo), memories
// anchored to it with stable keys (testdata/memories.txt) and queries of
// three kinds with their relevant memories (testdata/queries.txt). It
// computes recall@k and MRR@k per query kind for rankers (full text, vector,
// fused) and renders the golden files and the summary table that the
// package's tests compare, in the style of zoekt's ranking golden files.
package rankeval

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/memory"
)

// Ranker returns the ids of at most k memories of w for query, best first.
type Ranker func(ctx context.Context, w *memory.Workspace, query string, k int) ([]string, error)

// NamedRanker is a Ranker with the name used in golden file names and
// reports.
type NamedRanker struct {
	Name string
	Rank Ranker
}

// Rankers are the rankers evaluated by the golden tests, in report order.
// "bm25" is Workspace.Search (memory full text alone), "vector" is
// Workspace.VectorSearch alone, "fused" is Workspace.FusedSearch.
var Rankers = []NamedRanker{
	{"bm25", BM25},
	{"vector", Vector},
	{"fused", Fused},
}

// BM25 ranks with Workspace.Search (Bluge BM25 over the memory fields).
func BM25(ctx context.Context, w *memory.Workspace, query string, k int) ([]string, error) {
	hits, err := w.Search(ctx, query, k)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Memory.ID
	}
	return ids, nil
}

// Vector ranks with Workspace.VectorSearch alone.
func Vector(ctx context.Context, w *memory.Workspace, query string, k int) ([]string, error) {
	scored, err := w.VectorSearch(ctx, query, k)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(scored))
	for i, s := range scored {
		ids[i] = s.ID
	}
	return ids, nil
}

// Fused ranks with Workspace.FusedSearch (weighted RRF of memory full
// text, vectors, graph proximity and code symbols, then confidence,
// freshness and source trust), memories only, under the workspace's
// fusion profile (Workspace.FusionProfile).
func Fused(ctx context.Context, w *memory.Workspace, query string, k int) ([]string, error) {
	return fused(ctx, w, memory.SearchRequest{Query: query, Limit: k, Kind: memory.ResultMemory})
}

// FusedWith returns the Fused ranker under fusion profile p instead of
// the workspace's (memory.SearchRequest.Fusion), for tuning a profile.
func FusedWith(p memory.FusionProfile) Ranker {
	return func(ctx context.Context, w *memory.Workspace, query string, k int) ([]string, error) {
		return fused(ctx, w, memory.SearchRequest{Query: query, Limit: k, Kind: memory.ResultMemory, Fusion: &p})
	}
}

func fused(ctx context.Context, w *memory.Workspace, req memory.SearchRequest) ([]string, error) {
	res, err := w.FusedSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(res))
	for _, r := range res {
		ids = append(ids, r.Memory.ID)
	}
	return ids, nil
}

// RecallAt returns |relevant ∩ ranked[:k]| / min(k, |relevant|): the share
// of the relevant memories found in the top k, capped so that a query with
// more than k relevant memories can still reach 1 (the "capped recall" of
// Thakur et al., "BEIR", NeurIPS 2021 Datasets and Benchmarks). It is 0
// when relevant is empty.
func RecallAt(ranked, relevant []string, k int) float64 {
	want := min(k, len(relevant))
	if want == 0 {
		return 0
	}
	rel := set(relevant)
	n := 0
	for i, id := range ranked {
		if i == k {
			break
		}
		if rel[id] {
			n++
		}
	}
	return float64(n) / float64(want)
}

// ReciprocalRankAt returns 1/r for the 1-based rank r of the first relevant
// result within the top k, else 0; its mean over queries is MRR@k
// (Voorhees, "The TREC-8 Question Answering Track Report", 1999).
func ReciprocalRankAt(ranked, relevant []string, k int) float64 {
	rel := set(relevant)
	for i, id := range ranked {
		if i == k {
			break
		}
		if rel[id] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

func set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// Depth is how many results a run keeps per query (MRR@10, golden top 10).
const Depth = 10

// Result is one query's ranking, as memory keys, best first (at most
// Depth); a result id without a key is kept as "?ID".
type Result struct {
	Query  Query
	Ranked []string
}

// Run ranks every query with r and maps the result ids to keys with
// keyOf (id → key). It returns the first ranker error.
func Run(ctx context.Context, w *memory.Workspace, r Ranker, queries []Query, keyOf map[string]string) ([]Result, error) {
	out := make([]Result, len(queries))
	for i, q := range queries {
		ids, err := r(ctx, w, q.Text, Depth)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Text, err)
		}
		if len(ids) > Depth {
			ids = ids[:Depth]
		}
		keys := make([]string, len(ids))
		for j, id := range ids {
			if k, ok := keyOf[id]; ok {
				keys[j] = k
			} else {
				keys[j] = "?" + id
			}
		}
		out[i] = Result{Query: q, Ranked: keys}
	}
	return out, nil
}

// Metrics are the mean scores of one ranker over the queries of one kind.
type Metrics struct {
	Queries   int
	RecallAt5 float64
	MRRAt10   float64
}

// Summarize returns the Metrics of results per query kind.
func Summarize(results []Result) map[string]Metrics {
	out := map[string]Metrics{}
	for _, r := range results {
		m := out[r.Query.Kind]
		m.Queries++
		m.RecallAt5 += RecallAt(r.Ranked, r.Query.Relevant, 5)
		m.MRRAt10 += ReciprocalRankAt(r.Ranked, r.Query.Relevant, 10)
		out[r.Query.Kind] = m
	}
	for k, m := range out {
		m.RecallAt5 /= float64(m.Queries)
		m.MRRAt10 /= float64(m.Queries)
		out[k] = m
	}
	return out
}

// Golden renders results as a golden file: per query its kind, text and
// relevant keys, then the ranked keys with their rank, relevant ones
// marked with '*'.
func Golden(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "[%s] %s\n  want: %s\n", r.Query.Kind, r.Query.Text, strings.Join(r.Query.Relevant, " "))
		if len(r.Ranked) == 0 {
			b.WriteString("  (no results)\n")
		}
		rel := set(r.Query.Relevant)
		for i, k := range r.Ranked {
			mark := " "
			if rel[k] {
				mark = "*"
			}
			fmt.Fprintf(&b, "  %2d %s %s\n", i+1, mark, k)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Table renders the metrics of each ranker (in the order of names) as a
// Markdown table with one row per ranker and query kind.
func Table(names []string, metrics map[string]map[string]Metrics) string {
	var b strings.Builder
	b.WriteString("| ranker | query kind | queries | recall@5 | MRR@10 |\n| --- | --- | ---: | ---: | ---: |\n")
	for _, n := range names {
		kinds := make([]string, 0, len(metrics[n]))
		for k := range metrics[n] {
			kinds = append(kinds, k)
		}
		sort.Slice(kinds, func(i, j int) bool {
			if oi, oj := kindOrder(kinds[i]), kindOrder(kinds[j]); oi != oj {
				return oi < oj
			}
			return kinds[i] > kinds[j] // "paraphrase-tune" before "paraphrase-heldout"
		})
		for _, k := range kinds {
			m := metrics[n][k]
			fmt.Fprintf(&b, "| %s | %s | %d | %.3f | %.3f |\n", n, k, m.Queries, m.RecallAt5, m.MRRAt10)
		}
	}
	return b.String()
}

// kindOrder orders kinds as Kinds does, a half ("paraphrase-tune") with
// its kind.
func kindOrder(kind string) int {
	for i, k := range Kinds {
		if k == kind || strings.HasPrefix(kind, k+"-") {
			return i
		}
	}
	return len(Kinds)
}

// SplitHalves splits the results of one query kind into a tuning half
// (the 1st, 3rd, 5th… query of that kind in file order) and a held-out
// half (the 2nd, 4th…), so that a hyper-parameter chosen on the tuning
// half can be reported on queries it never saw.
func SplitHalves(results []Result, kind string) (tune, heldOut []Result) {
	n := 0
	for _, r := range results {
		if r.Query.Kind != kind {
			continue
		}
		if n%2 == 0 {
			tune = append(tune, r)
		} else {
			heldOut = append(heldOut, r)
		}
		n++
	}
	return tune, heldOut
}
