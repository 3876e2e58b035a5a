package memory

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/index"
)

// TestFuserOrder checks weighted RRF, the confidence and freshness
// multipliers and deterministic ties on hand-made ranker lists.
func TestFuserOrder(t *testing.T) {
	mem := func(id string, conf float64, stale bool) *Memory {
		m := &Memory{ID: id, Confidence: conf, Anchors: []Anchor{{Status: StatusFresh}}}
		if stale {
			m.Anchors[0].Status = StatusChanged
		}
		return m
	}
	sym := func(name string) *index.Definition {
		return &index.Definition{Symbol: "s " + name + "().", Name: name, Path: "x.go"}
	}
	type entry struct {
		r      Result
		ranker string
		rank   int
	}
	m := func(mm *Memory, ranker string, rank int) entry {
		return entry{Result{Kind: ResultMemory, Memory: mm}, ranker, rank}
	}
	s := func(d *index.Definition, rank int) entry {
		return entry{Result{Kind: ResultSymbol, Symbol: d}, RankerCode, rank}
	}
	a, b, c := mem("A", 1, false), mem("B", 1, false), mem("C", 1, true)
	low := mem("L", 0.2, false)
	for _, tc := range []struct {
		name    string
		entries []entry
		want    string
	}{
		{"agreement beats one first place", []entry{m(a, RankerText, 1), m(b, RankerText, 2), m(b, RankerVector, 1), m(a, RankerVector, 5)}, "B A"},
		{"text outweighs graph at equal rank", []entry{m(a, RankerGraph, 1), m(b, RankerText, 1)}, "B A"},
		{"memory before symbol at equal rank", []entry{s(sym("Zed"), 1), m(a, RankerText, 1)}, "A s:Zed"},
		{"stale halved, not hidden", []entry{m(c, RankerText, 1), m(a, RankerText, 2)}, "A C"},
		{"low confidence lowered", []entry{m(low, RankerText, 1), m(a, RankerText, 3)}, "A L"},
		{"ties by key", []entry{m(b, RankerVector, 1), m(a, RankerText, 1)}, "A B"},
		{"symbols tie by key", []entry{s(sym("b"), 1), s(sym("a"), 1)}, "s:a s:b"},
	} {
		f := &fuser{byKey: map[string]*Result{}}
		for _, e := range tc.entries {
			f.add(e.r, RankerPart{Ranker: e.ranker, Rank: e.rank})
		}
		var got []string
		for _, r := range f.results(MaxSearchLimit, nil) {
			if r.Kind == ResultMemory {
				got = append(got, r.Memory.ID)
			} else {
				got = append(got, "s:"+r.Symbol.Name)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: order %v, want %s", tc.name, got, tc.want)
		}
	}
}

// TestFuserResultsReadLazily checks that results, given a limit, returns
// what scoring every candidate and cutting at the limit returns, while
// reading only some of the memories it was given as ids (random lists
// of memories of random confidence, staleness and source).
func TestFuserResultsReadLazily(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sources := []string{"user", "agent", "imported_git", "inferred"}
	for trial := 0; trial < 50; trial++ {
		mems := map[string]*Memory{}
		lazy, eager := &fuser{byKey: map[string]*Result{}}, &fuser{byKey: map[string]*Result{}}
		for _, ranker := range []string{RankerText, RankerVector, RankerGraph} {
			for rank := 1; rank <= 40; rank++ {
				id := fmt.Sprintf("M%03d", rng.Intn(120))
				m := mems[id]
				if m == nil {
					m = &Memory{ID: id, Confidence: 0.2 + 0.8*rng.Float64(), Source: sources[rng.Intn(len(sources))], Anchors: []Anchor{{Status: StatusFresh}}}
					if rng.Intn(5) == 0 {
						m.Anchors[0].Status = StatusChanged
					}
					mems[id] = m
				}
				p := RankerPart{Ranker: ranker, Rank: rank}
				lazy.add(Result{Kind: ResultMemory, id: id}, p)
				eager.add(Result{Kind: ResultMemory, Memory: m}, p)
			}
		}
		reads := 0
		limit := 1 + rng.Intn(30)
		got := lazy.results(limit, func(id string) *Memory { reads++; return mems[id] })
		want := eager.results(MaxSearchLimit, nil)[:limit]
		for i := range want {
			if got[i].Memory.ID != want[i].Memory.ID || got[i].Score != want[i].Score {
				t.Fatalf("trial %d, limit %d: result %d is %s (%g), want %s (%g)", trial, limit, i, got[i].Memory.ID, got[i].Score, want[i].Memory.ID, want[i].Score)
			}
		}
		if len(got) != limit || reads >= len(mems) {
			t.Fatalf("trial %d: %d results for limit %d, %d of %d memories read", trial, len(got), limit, reads, len(mems))
		}
	}
}

// TestQueryCoverage checks the share of query terms found in a memory's
// full-text document and the text weight it gives (TextWeightScale).
func TestQueryCoverage(t *testing.T) {
	m := &Memory{ID: "A", Title: "Retries are capped", Body: "backoffCap bounds one sleep between attempts", Tags: []string{"retry"}}
	for _, tc := range []struct {
		query string
		want  float64
	}{
		{"backoffCap", 1},                         // backoffcap, backoff, cap: all in the body (split)
		{"retry cap", 1},                          // stems of "Retries", "capped"
		{"longest sleep between tries", 1.0 / 3},  // longest, sleep, tri ("between" is a stop word): sleep
		{"why are waiting periods randomized", 0}, // no term shared
		{"the", 0}, // stop words only: no terms
	} {
		if got := QueryCoverage(tc.query, m); got != tc.want {
			t.Errorf("QueryCoverage(%q) = %g, want %g", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct{ c, want float64 }{{0, 0}, {1.0 / 6, 0.25}, {1.0 / 3, 1}, {0.8, 1}} {
		if got := TextWeightScale(tc.c); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("TextWeightScale(%g) = %g, want %g", tc.c, got, tc.want)
		}
	}
}

// TestFuserTextWeight checks that a low query coverage lowers the text
// ranker's parts (weight and coverage in the explanation), so the vector
// list's first hit outranks a memory both lists rank 20th, and that full
// coverage leaves RRF as it was (agreement wins).
func TestFuserTextWeight(t *testing.T) {
	a, b := &Memory{ID: "A"}, &Memory{ID: "B"}
	for _, tc := range []struct {
		coverage float64
		want     string
	}{{1.0 / 6, "A B"}, {1, "B A"}} {
		f := &fuser{byKey: map[string]*Result{}, weights: fusionWeights{set: true, textScale: TextWeightScale(tc.coverage), coverage: tc.coverage}}
		f.add(Result{Kind: ResultMemory, Memory: a}, RankerPart{Ranker: RankerVector, Rank: 1})
		f.add(Result{Kind: ResultMemory, Memory: b}, RankerPart{Ranker: RankerVector, Rank: 20})
		f.add(Result{Kind: ResultMemory, Memory: b}, RankerPart{Ranker: RankerText, Rank: 20})
		res := f.results(10, nil)
		if got := res[0].Memory.ID + " " + res[1].Memory.ID; got != tc.want {
			t.Errorf("coverage %.2f: order %s, want %s", tc.coverage, got, tc.want)
		}
		for _, r := range res {
			for _, p := range r.Explain.Rankers {
				if p.Ranker == RankerText && (p.Coverage != tc.coverage || p.Weight != TextWeightScale(tc.coverage)) {
					t.Errorf("coverage %.2f: text part %+v", tc.coverage, p)
				}
			}
		}
	}
}

// BenchmarkQueryCoverage measures what the text ranker's weight costs a
// fused search beyond reading one memory: the coverage of a five-word
// query in a memory of a 40-word note anchored to a 60-line function.
func BenchmarkQueryCoverage(b *testing.B) {
	var code strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&code, "\tif attempt%d >= p.MaxAttempts {\n\t\treturn lastErr\n\t}\n\tdelay := p.NextDelay(attempt%d)\n\ttimer := time.NewTimer(delay)\n", i, i)
	}
	m := &Memory{ID: "A", Type: "gotcha", Title: "Retries are capped at the policy's maximum",
		Body: strings.Repeat("The backoff doubles each attempt and a single sleep is bounded by backoffCap. ", 3),
		Tags: []string{"retry"}, Anchors: []Anchor{{Path: "internal/retry/retry.go", Symbol: "scip-go gomod example.com/x v1 `example.com/x/retry`/Do().", Snapshot: code.String()}}}
	b.ReportAllocs()
	for b.Loop() {
		QueryCoverage("longest pause between tries at startup", m)
	}
}
