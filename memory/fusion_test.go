package memory

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/embed"
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

// TestFusionProfileFor checks that the fusion profile follows the kind of
// the configured embedder: the built-in model (and none, and an
// unparsable selection) keep BuiltinFusion, pretrained providers get
// PretrainedFusion, and $GLOSS_FUSION overrides parts of either
// (ParseFusionProfile). No embedder is loaded or called.
func TestFusionProfileFor(t *testing.T) {
	t.Setenv(embed.EnvVar, "")
	t.Setenv(FusionEnvVar, "")
	for _, tc := range []struct{ spec, want string }{
		{"", FusionBuiltin},
		{"builtin", FusionBuiltin},
		{"none", FusionBuiltin},
		{"model2vec:/models/potion", FusionPretrained},
		{"ollama:nomic-embed-text", FusionPretrained},
		{"openai:use@http://127.0.0.1:1", FusionPretrained},
		{"bogus:x", FusionBuiltin},
	} {
		w := &Workspace{}
		w.vecs.spec = tc.spec
		if got, err := w.FusionProfile(); err != nil || got.Name != tc.want {
			t.Errorf("embedder %q: profile %+v, want %s", tc.spec, got, tc.want)
		}
	}
	t.Setenv(embed.EnvVar, "openai:fake")
	if got, err := (&Workspace{}).FusionProfile(); err != nil || got != PretrainedFusion {
		t.Errorf("$%s=openai:fake: profile %+v, %v, want PretrainedFusion", embed.EnvVar, got, err)
	}
	t.Setenv(FusionEnvVar, "k=20, coverage=1,vector=1")
	want := FusionProfile{Name: "custom", RRFK: 20, CoverageFull: 1, VectorWeight: 1, NearDuplicateCosine: PretrainedFusion.NearDuplicateCosine}
	if got, err := (&Workspace{}).FusionProfile(); err != nil || got != want {
		t.Errorf("$%s overrides: profile %+v, %v, want %+v", FusionEnvVar, got, err, want)
	}
	t.Setenv(FusionEnvVar, "k=0")
	if _, err := (&Workspace{}).FusionProfile(); err == nil {
		t.Errorf("$%s=k=0: no error", FusionEnvVar)
	}
	for _, bad := range []string{"k=x", "rrf=20", "coverage=2", "vector=-1", "duplicate=0", "k"} {
		if _, err := ParseFusionProfile(bad, BuiltinFusion); err == nil {
			t.Errorf("ParseFusionProfile(%q): no error", bad)
		}
	}
	if got, err := ParseFusionProfile("duplicate=0.8", BuiltinFusion); err != nil || got.NearDuplicateCosine != 0.8 || got.RRFK != BuiltinRRFK || got.Name != "custom" {
		t.Errorf("ParseFusionProfile(duplicate=0.8) = %+v, %v", got, err)
	}
	if BuiltinFusion.RRFK != BuiltinRRFK || BuiltinFusion.CoverageFull != CoverageFull || BuiltinFusion.VectorWeight != RankerWeights[RankerVector] || BuiltinFusion.NearDuplicateCosine != NearDuplicateCosine {
		t.Errorf("BuiltinFusion %+v differs from BuiltinRRFK, CoverageFull and RankerWeights", BuiltinFusion)
	}
	for _, p := range []FusionProfile{BuiltinFusion, PretrainedFusion} {
		if err := p.validate(); err != nil {
			t.Error(err)
		}
	}
	for _, p := range []FusionProfile{{RRFK: 0, CoverageFull: 1}, {RRFK: 20, CoverageFull: 0}, {RRFK: 20, CoverageFull: 1.5}, {RRFK: 20, CoverageFull: 1, VectorWeight: -1}} {
		if p.validate() == nil {
			t.Errorf("profile %+v: no error", p)
		}
	}
}

// TestFuserProfile checks a profile's arithmetic on hand-made lists: the
// contribution is weight/(k+rank) with the profile's k and vector weight,
// the text weight is scaled by (c/CoverageFull)², and the explanation
// names the profile. The case is a paraphrase's: memory A is the vector
// list's first and not on the text list, B is 20th on the text list
// (coverage 0.4) and 6th on the vector list; a profile trusting vectors
// (the third) puts A first.
func TestFuserProfile(t *testing.T) {
	const c = 0.4
	for _, tc := range []struct {
		p     FusionProfile
		scale float64
		want  string
	}{
		{BuiltinFusion, 1, "B A"},       // 1/40 + 1/26 > 1/21: agreement wins
		{PretrainedFusion, 0.64, "B A"}, // (0.4/0.5)²: 0.64/30 + 0.25/16 > 0.25/11
		{FusionProfile{Name: "x", RRFK: 10, CoverageFull: 0.8, VectorWeight: 2}, 0.25, "A B"},
	} {
		a, b := &Memory{ID: "A"}, &Memory{ID: "B"}
		f := &fuser{byKey: map[string]*Result{}, weights: fusionWeights{profile: tc.p, set: true, textScale: tc.p.TextWeightScale(c), coverage: c}}
		f.add(Result{Kind: ResultMemory, Memory: a}, RankerPart{Ranker: RankerVector, Rank: 1})
		f.add(Result{Kind: ResultMemory, Memory: b}, RankerPart{Ranker: RankerText, Rank: 20})
		f.add(Result{Kind: ResultMemory, Memory: b}, RankerPart{Ranker: RankerVector, Rank: 6})
		res := f.results(10, nil)
		if got := res[0].Memory.ID + " " + res[1].Memory.ID; got != tc.want {
			t.Errorf("profile %s: order %s, want %s", tc.p.Name, got, tc.want)
		}
		for _, r := range res {
			if r.Explain.Fusion == nil || *r.Explain.Fusion != tc.p {
				t.Errorf("profile %s: explanation names %+v", tc.p.Name, r.Explain.Fusion)
			}
			for _, p := range r.Explain.Rankers {
				w := tc.p.VectorWeight
				if p.Ranker == RankerText {
					w = tc.scale
				}
				if math.Abs(p.Weight-w) > 1e-12 || math.Abs(p.Contribution-w/float64(tc.p.RRFK+p.Rank)) > 1e-12 {
					t.Errorf("profile %s: part %+v, want weight %g, contribution %g", tc.p.Name, p, w, w/float64(tc.p.RRFK+p.Rank))
				}
			}
		}
	}
	// The zero weights (no query coverage known) are BuiltinFusion's.
	f := &fuser{byKey: map[string]*Result{}}
	f.add(Result{Kind: ResultMemory, Memory: &Memory{ID: "A"}}, RankerPart{Ranker: RankerVector, Rank: 1})
	if res := f.results(1, nil); res[0].Explain.RRF != 1.0/(BuiltinRRFK+1) || *res[0].Explain.Fusion != BuiltinFusion {
		t.Errorf("zero weights: rrf %g, profile %+v", res[0].Explain.RRF, res[0].Explain.Fusion)
	}
}
