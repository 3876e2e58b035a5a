package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/internal/timing"
	"github.com/gloss-dev/gloss/scip"
)

// Result kinds of FusedSearch.
const (
	ResultMemory = "memory"
	ResultSymbol = "symbol"
)

// Rankers fused by FusedSearch.
const (
	// RankerText is BM25 over memories (Search).
	RankerText = "text"
	// RankerVector is the vector index over memories (VectorSearch).
	RankerVector = "vector"
	// RankerGraph is proximity through the symbol graph (GraphRank).
	RankerGraph = "graph"
	// RankerCode is BM25 over code definitions (SearchCode).
	RankerCode = "code"
)

// RRFK is the k of reciprocal rank fusion, 60 as in Cormack, Clarke and
// Büttcher, "Reciprocal rank fusion outperforms Condorcet and individual
// rank learning methods" (SIGIR 2009), where it was fixed on pilot data
// (TREC runs of 1,000 documents) and not tuned; it damps the difference
// between the first ranks. Context turns a search rank r (0-based) into
// RRFK/(RRFK+r+1); the built-in fusion profile's k is BuiltinRRFK.
const RRFK = 60

// BuiltinRRFK is the RRF k of BuiltinFusion: 20. With lists of at most a
// few dozen memories, k 60 made ranks 1 and 1 (2/61 = 0.0328) worth only
// 6% more than ranks 4 and 5 (1/64 + 1/65 = 0.0310), less than the trust
// of an agent's memory (0.9, SourceTrust) takes away, so a memory whose
// title and body hold the query came below memories that matched it only
// through identifiers of their anchored code (BM25 a hundredth of its
// own; docs/eval.md, "2026-11-28: score-aware fusion"). At k 20 the same
// ranks differ by 17% (2/21 against 1/24 + 1/25). Chosen on the tuning
// halves of the ranking golden set (internal/rankeval) among k 5, 10,
// 20, 40, 60 with the other parameters of the profile fixed: the one k
// under which no kind's recall@5 or MRR@10 fell and one rose
// (paraphrase MRR@10 0.058 → 0.064); on the held-out halves identifiers
// and tasks are unchanged and paraphrases rise (recall@5 0.154 → 0.231).
const BuiltinRRFK = 20

// RankerWeights weigh each ranker's reciprocal rank (weighted RRF):
//
//   - text 1: lexical matches on a memory's own words are the most
//     precise evidence, and the baseline the others are measured against;
//   - vector 1: as much as text, since it finds what text misses (a
//     paraphrase shares no word with the note); a workspace without a
//     vector index simply has no vector list;
//   - code 0.9: code symbols compete with memories for the same places,
//     but memories are what gloss is for: under BuiltinFusion (k 20) a
//     symbol ranked first by its name alone comes after the first three
//     memories ranked by their words alone (0.9/21 lies between 1/23 and
//     1/24; seven at k 60), and deeper down the two interleave; 0.7,
//     tried first on cobra at k 60, pushed symbols below the first 27
//     weak memory matches, out of sight;
//   - graph 0.5: nearness to the symbols the query names or the file at
//     hand says a memory is relevant context, not that it answers the
//     query; it lifts matches among equals and brings in neighbors (the
//     named definitions themselves rank first in it).
var RankerWeights = map[string]float64{RankerText: 1, RankerVector: 1, RankerCode: 0.9, RankerGraph: 0.5}

// FusionProfile is the part of FusedSearch's weighted reciprocal rank
// fusion that depends on the embedder behind the vector list
// (FusionProfileFor): how far the vector list is trusted against the
// text list. A part of a result is weight/(RRFK+rank), rank 1-based
// (Cormack, Clarke and Büttcher, SIGIR 2009); the text ranker's weight is
// scaled by TextWeightScale of the query coverage (QueryCoverage).
type FusionProfile struct {
	// Name is FusionBuiltin, FusionPretrained, or "custom" when
	// $GLOSS_FUSION changed it (ParseFusionProfile).
	Name string `json:"name"`
	// RRFK is the k of reciprocal rank fusion (> 0): smaller k widens the
	// gap between a list's first ranks and the ranks after them.
	RRFK int `json:"rrf_k"`
	// CoverageFull is the query coverage (0 < CoverageFull ≤ 1) from which
	// the text ranker gets its full weight (TextWeightScale).
	CoverageFull float64 `json:"coverage_full"`
	// VectorWeight is the vector ranker's weight (RankerWeights' text
	// weight is 1).
	VectorWeight float64 `json:"vector_weight"`
	// NearDuplicateCosine is not a fusion parameter but depends on the
	// embedder the same way: the cosine similarity at or above which
	// NearestMemories' hits are near-duplicates (NearDuplicates).
	NearDuplicateCosine float64 `json:"near_duplicate_cosine"`
}

// Names of the fusion profiles.
const (
	// FusionBuiltin is the profile of the built-in workspace embedder
	// (and of no embedder): its vector list is weak on paraphrases, so
	// the text list keeps its weight from a third of the query's terms.
	FusionBuiltin = "builtin"
	// FusionPretrained is the profile of a pretrained embedder
	// (model2vec, Ollama, OpenAI-compatible): its vector list is not
	// trained on the workspace, so it is weighed by what a pretrained
	// model measured on the golden set (PretrainedFusion).
	FusionPretrained = "pretrained"
)

// BuiltinFusion is the profile of the built-in embedder: RRF k
// BuiltinRRFK (20), CoverageFull ⅓ and vector weight 1, chosen on the
// tuning halves of the ranking golden set (internal/rankeval, docs/eval.md:
// "Query-dependent weight of the text list" for the coverage, "2026-11-28:
// score-aware fusion" for k).
var BuiltinFusion = FusionProfile{Name: FusionBuiltin, RRFK: BuiltinRRFK, CoverageFull: CoverageFull, VectorWeight: 1, NearDuplicateCosine: NearDuplicateCosine}

// PretrainedFusion is the profile of a pretrained embedder, chosen on
// the tuning halves of the ranking golden set (internal/rankeval;
// TestFusionProfileReport's grid of RRF k 5–60, CoverageFull ⅓–1, vector
// weight 0.25–2: the highest sum of recall@5 over the three query kinds,
// ties by MRR@10) with Universal Sentence Encoder lite (Cer et al.,
// "Universal Sentence Encoder", 2018) behind the OpenAI-compatible
// provider (scripts/use-embeddings-server; docs/eval.md, "A pretrained
// sentence encoder and a fusion profile per embedder"): RRF k 10,
// CoverageFull ½, vector weight 0.25. That model's vector list is weaker
// than BM25 on identifiers and tasks of this set, so the tuning trusts it
// less, not more: an oracle embedder wanted CoverageFull 1 and k 20
// (TestFusionOracleReport). NearDuplicateCosine 0.9: with that model,
// rewordings of a note scored 0.66–0.87 and distinct notes of the golden
// set up to 0.86 (half of them have a neighbour at 0.75 or more), so only
// near-identical texts are reported by their vectors; TextSimilarity
// still reports rewordings that share words.
var PretrainedFusion = FusionProfile{Name: FusionPretrained, RRFK: 10, CoverageFull: 0.5, VectorWeight: 0.25, NearDuplicateCosine: 0.9}

// FusionProfileFor returns the fusion profile of an embedder kind
// (embed.Spec.Kind): PretrainedFusion for model2vec, ollama and openai,
// BuiltinFusion for builtin, none and anything else.
func FusionProfileFor(kind string) FusionProfile {
	switch kind {
	case embed.KindModel2Vec, embed.KindOllama, embed.KindOpenAI:
		return PretrainedFusion
	}
	return BuiltinFusion
}

// FusionEnvVar names the environment variable that overrides parts of
// the embedder's fusion profile (ParseFusionProfile), e.g. for a strong
// model behind openai: that deserves more trust than PretrainedFusion
// gives: GLOSS_FUSION=k=20,coverage=1,vector=1.
const FusionEnvVar = "GLOSS_FUSION"

// ParseFusionProfile returns base with the parameters set by s, a
// comma-separated list of key=value: k (RRFK, integer > 0), coverage
// (CoverageFull, in (0, 1]), vector (VectorWeight, ≥ 0) and duplicate
// (NearDuplicateCosine, in (0, 1]); the result is named "custom". An
// empty s returns base. It fails on an unknown key or a value out of
// range.
func ParseFusionProfile(s string, base FusionProfile) (FusionProfile, error) {
	if strings.TrimSpace(s) == "" {
		return base, nil
	}
	p := base
	p.Name = "custom"
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		var err error
		switch k {
		case "k":
			p.RRFK, err = strconv.Atoi(v)
		case "coverage":
			p.CoverageFull, err = strconv.ParseFloat(v, 64)
		case "vector":
			p.VectorWeight, err = strconv.ParseFloat(v, 64)
		case "duplicate":
			p.NearDuplicateCosine, err = strconv.ParseFloat(v, 64)
			if err == nil && !(p.NearDuplicateCosine > 0 && p.NearDuplicateCosine <= 1) {
				err = fmt.Errorf("out of (0, 1]")
			}
		default:
			err = fmt.Errorf("unknown key (want k, coverage, vector or duplicate)")
		}
		if err != nil {
			return FusionProfile{}, fmt.Errorf("fusion profile %q: %q: %v", s, kv, err)
		}
	}
	if err := p.validate(); err != nil {
		return FusionProfile{}, err
	}
	return p, nil
}

// FusionProfile returns the fusion profile of w's embedder
// (Options.Embedder, else $GLOSS_EMBEDDER: FusionProfileFor of its kind;
// BuiltinFusion when the selection does not parse, searches then fail on
// the vector index), with $GLOSS_FUSION's overrides (ParseFusionProfile),
// whose errors it returns. While a change of embedder awaits or runs its
// re-embedding (the old embedder's vectors answer, detectChange), it is
// the old embedder's kind's profile.
func (w *Workspace) FusionProfile() (FusionProfile, error) {
	p := BuiltinFusion
	if spec, err := w.embedSpec(); err == nil {
		p = FusionProfileFor(spec.Kind)
	}
	// While a change of embedder is re-embedded, the old vectors answer:
	// weigh them by their own embedder's profile.
	from := ""
	if ch := w.vecs.change.Load(); ch != nil {
		from = ch.From
	} else if o, _, _, changed := w.pendingChange(); changed {
		from = o.Spec
	}
	if spec, err := embed.ParseSpec(from); from != "" && err == nil {
		p = FusionProfileFor(spec.Kind)
	}
	return ParseFusionProfile(os.Getenv(FusionEnvVar), p)
}

// TextWeightScale is the factor on the text ranker's weight for a query
// whose best full-text hit has query coverage c under profile p:
// min(1, (c/p.CoverageFull)²) (the package function TextWeightScale
// explains the rule).
func (p FusionProfile) TextWeightScale(c float64) float64 {
	r := c / p.CoverageFull
	return min(1, r*r)
}

// StaleFactor multiplies the fused score of a stale memory: ranked lower,
// labelled, never hidden. Fused scores are compressed (under BuiltinFusion,
// k 20: 1/21 for a first rank, 1/40 for a twentieth), so the factor is
// mild: 0.85 moves a memory ranked first by one ranker to about fifth
// (21/0.85 − 20; twelfth at k 60); 0.5, tried first on cobra at k 60,
// sent it below the sixtieth, out of sight.
const StaleFactor = 0.85

// SupersededFactor multiplies the fused score of a memory another one
// supersedes (RelSupersedes): labelled and ranked lower, not hidden (a
// filter can: Filter.Superseded). 0.8 moves a memory ranked first by one
// ranker to about sixth under BuiltinFusion (21/0.8 − 20; sixteenth at
// k 60), below its successor, which usually shares its words and its
// anchor, yet within a page of results.
const SupersededFactor = 0.8

// ConfidenceFloor damps confidence for the same reason: the multiplier is
// ConfidenceFloor + (1 − ConfidenceFloor) × confidence, so a memory of
// confidence 0.2 scores 0.8 of a sure one.
const ConfidenceFloor = 0.75

// SearchRequest is a fused search (FusedSearch).
type SearchRequest struct {
	// Query is the text searched (required).
	Query string
	// Limit is the number of results (0: 20; at most MaxSearchLimit).
	Limit int
	// Filter narrows memories (and code symbols by path and symbol; a
	// filter on type, tag, stale "only" or confidence keeps no symbol).
	Filter Filter
	// Kind is "" (memories and code symbols), ResultMemory or
	// ResultSymbol.
	Kind string
	// Files (absolute, or relative to the current directory, inside the
	// workspace) and Symbols (SCIP symbols or definition names) seed the
	// graph ranker, as do the definitions the query names (QuerySymbols)
	// and Filter.Symbol.
	Files   []string
	Symbols []string
	// Fusion overrides the workspace's fusion profile (nil:
	// Workspace.FusionProfile), for evaluation and tuning
	// (internal/rankeval).
	Fusion *FusionProfile

	// fromSummaries ranks the memories from their stored summaries
	// (summaryMemory) instead of their records: Context sets it when the
	// summaries are current (summariesRankable); results carry memories
	// marked fromSummary.
	fromSummaries bool
}

// RankerPart is one ranker's part in a fused score.
type RankerPart struct {
	Ranker string `json:"ranker"`
	// Rank is the 1-based place in the ranker's list (after filters).
	Rank int `json:"rank"`
	// Score is the ranker's own score: BM25, cosine similarity or
	// proximity (GraphHit.Proximity).
	Score float64 `json:"score"`
	// Weight is RankerWeights[Ranker] (the vector ranker's is the fusion
	// profile's VectorWeight), for the text ranker times the profile's
	// TextWeightScale(Coverage); Contribution = Weight/(k+Rank) with k
	// the profile's RRFK (Explanation.Fusion).
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
	// Coverage is set on the text ranker's parts: the query coverage
	// (QueryCoverage, 0 to 1) of the text ranker's first hit, which
	// scales its weight.
	Coverage float64 `json:"coverage,omitempty"`
	// Why is the graph relation that placed the memory.
	Why string `json:"why,omitempty"`
}

// Explanation is every part of a fused score: Score = RRF × Confidence ×
// Trust × Freshness.
type Explanation struct {
	Rankers []RankerPart `json:"rankers"`
	// Vectors says why the vector ranker did not use the configured
	// embedder's vectors (Workspace.VectorsNote: a change of embedder
	// being re-embedded, and which vectors answered meanwhile); "" when
	// it did.
	Vectors string `json:"vectors,omitempty"`
	// RRF is the sum of the rankers' contributions.
	RRF float64 `json:"rrf"`
	// Confidence is the confidence multiplier, ConfidenceFloor + (1 −
	// ConfidenceFloor) × the decay and review parts of the memory's
	// confidence (confidence.Parts.Decay × Review; trust and staleness are
	// Trust and Freshness here); 1 for symbols.
	Confidence float64 `json:"confidence"`
	// Trust is the multiplier of the memory's source (1 for symbols).
	Trust float64 `json:"trust"`
	// Freshness is StaleFactor for a stale memory, else 1, times
	// SupersededFactor for a superseded one.
	Freshness float64 `json:"freshness"`
	Score     float64 `json:"score"`
	// Fusion is the fusion profile the parts were weighed by
	// (FusionProfile: RRF k, coverage of full text weight, vector weight).
	Fusion *FusionProfile `json:"fusion,omitempty"`
}

// Result is one fused search result: a memory or a code symbol.
type Result struct {
	// Kind is ResultMemory or ResultSymbol.
	Kind   string
	Memory *Memory
	Symbol *index.Definition
	// Score is the fused score (Explain.Score).
	Score   float64
	Explain Explanation

	// id is the id of a memory result whose Memory is not read yet
	// (FusedSearch reads only the memories that may rank within its
	// limit: fuser.results).
	id string
}

// Key identifies the result: "memory:ID" or "symbol:PATH\x00SYMBOL".
func (r Result) Key() string {
	if r.Kind == ResultMemory {
		if r.Memory == nil {
			return "memory:" + r.id
		}
		return "memory:" + r.Memory.ID
	}
	return "symbol:" + codeDocID(r.Symbol.Path, r.Symbol.Symbol)
}

// Less orders results best first: score, then memories before symbols,
// then key (deterministic ties).
func Less(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Kind != b.Kind {
		return a.Kind == ResultMemory
	}
	return a.Key() < b.Key()
}

// FusedSearch ranks memories and code symbols for req by weighted
// reciprocal rank fusion (Cormack et al. 2009; the fusion profile's k,
// RankerWeights) of BM25 over memories, the vector index, graph proximity and BM25 over
// code definitions, each list filtered before ranks are counted; then
// multiplies by confidence, source trust and freshness (Explanation). Results are best
// first (Less), at most req.Limit. It fails on an empty query, an invalid
// filter or kind, a file outside the workspace, or a store error.
func (w *Workspace) FusedSearch(ctx context.Context, req SearchRequest) ([]Result, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, fmt.Errorf("empty search query")
	}
	if req.Kind != "" && req.Kind != ResultMemory && req.Kind != ResultSymbol {
		return nil, fmt.Errorf("kind must be memory or symbol, not %q", req.Kind)
	}
	if err := req.Filter.Validate(); err != nil {
		return nil, err
	}
	limit := clampSearchLimit(req.Limit)
	depth := min(max(2*limit, 40), MaxSearchLimit)
	var rankers []func(*rankList) error
	var vectorSkipped string // why the vector ranker was skipped (memoryRankers); read after runRankers
	if req.Kind != ResultSymbol {
		text, vector, err := w.memoryRankers(ctx, req, depth, limit, &vectorSkipped)
		if err != nil {
			return nil, err
		}
		rankers = append(rankers, text, vector)
	}
	rankers = append(rankers, func(l *rankList) error { defer timing.Mark("graph ranker"); return w.graphRanker(req, l) })
	if req.Kind != ResultMemory && req.Filter.keepsSymbols() {
		rankers = append(rankers, func(l *rankList) error { return w.codeRanker(ctx, req, depth, limit, l) })
	}
	profile, err := w.FusionProfile()
	if err != nil {
		return nil, err
	}
	if req.Fusion != nil {
		profile = *req.Fusion
	}
	if err := profile.validate(); err != nil {
		return nil, err
	}
	f, err := runRankers(rankers, func(lists []rankList) (fusionWeights, error) { return w.queryWeights(req.Query, lists, profile) })
	if err != nil {
		return nil, err
	}
	timing.Mark("rankers done")
	out, err := w.fusedResults(f, limit, req.fromSummaries)
	timing.Mark("fused results read")
	if err != nil {
		return nil, err
	}
	if w.vecs.change.Load() != nil || vectorSkipped != "" { // found by the vector ranker
		note := vectorSkipped
		if note == "" {
			note = w.VectorsNote()
		}
		for i := range out {
			out[i].Explain.Vectors = note
		}
	}
	return out, w.resolveSymbols(out)
}

// codeRanker adds the BM25 ranking of code definitions that pass the
// filter (deepen).
func (w *Workspace) codeRanker(ctx context.Context, req SearchRequest, depth, want int, l *rankList) error {
	hits, err := deepen(depth, want, func(n int) ([]index.Scored, error) { return w.codeRanking(ctx, req.Query, n) },
		func(sc index.Scored) bool { return req.Filter.KeepSymbol(stubDef(sc.ID)) })
	if err != nil {
		return err
	}
	l.grow(len(hits))
	for i, h := range hits {
		d := stubDef(h.ID)
		l.add(Result{Kind: ResultSymbol, Symbol: &d}, RankerPart{Ranker: RankerCode, Rank: i + 1, Score: h.Score})
	}
	return nil
}

// deepen returns the items of a ranking that keep accepts, asking fetch
// for the first n items with n = depth, 4·depth, … up to MaxSearchLimit
// until at least want are kept or the ranking has no more: a filter that
// keeps few items looks deeper, an unfiltered search reads depth items.
func deepen[T any](depth, want int, fetch func(n int) ([]T, error), keep func(T) bool) ([]T, error) {
	for n := depth; ; n = min(4*n, MaxSearchLimit) {
		list, err := fetch(n)
		if err != nil {
			return nil, err
		}
		var kept []T
		for _, x := range list {
			if keep(x) {
				kept = append(kept, x)
			}
		}
		if len(kept) >= want || len(list) < n || n >= MaxSearchLimit {
			return kept, nil
		}
	}
}

// memoryRankers returns the text and vector rankers of memories, each
// adding its list filtered (deepen) and cut to depth; they may run
// concurrently. When a remote embedder (ollama:, openai:) cannot embed
// the query (its server is down), the vector ranker adds nothing,
// reports it through Options.Warn and sets *vectorSkipped to why: the
// search answers from the other rankers.
func (w *Workspace) memoryRankers(ctx context.Context, req SearchRequest, depth, want int, vectorSkipped *string) (text, vector func(*rankList) error, err error) {
	var mu sync.Mutex // guards mems
	mems := map[string]*Memory{}
	to, err := w.Incoming()
	if err != nil {
		return nil, nil, err
	}
	load := func(id string) *Memory {
		mu.Lock()
		defer mu.Unlock()
		if m, ok := mems[id]; ok {
			return m
		}
		m, err := w.get(id)
		if err != nil {
			m = nil
		} else {
			annotateWith(to, m)
		}
		mems[id] = m
		return m
	}
	allowed, err := w.pathCandidates(req.Filter.Path)
	if err != nil {
		return nil, nil, err
	}
	filtered := !req.Filter.Empty()
	keep := func(sc index.Scored) bool {
		if !filtered {
			return true // read later, if it ranks (fuser.results)
		}
		if allowed != nil && !allowed[sc.ID] {
			return false // not decoded
		}
		m := load(sc.ID)
		return m != nil && req.Filter.Keep(m)
	}
	ranker := func(name string, fetch func(n int) ([]index.Scored, error)) func(*rankList) error {
		return func(l *rankList) error {
			list, err := deepen(depth, want, fetch, keep)
			if err != nil {
				return err
			}
			list = list[:min(len(list), depth)]
			l.grow(len(list))
			for i, sc := range list {
				var m *Memory
				if filtered {
					m = load(sc.ID) // cached: kept, so read
				}
				l.add(Result{Kind: ResultMemory, Memory: m, id: sc.ID}, RankerPart{Ranker: name, Rank: i + 1, Score: sc.Score})
			}
			return nil
		}
	}
	text = ranker(RankerText, func(n int) ([]index.Scored, error) { return w.textRanking(ctx, req.Query, n) })
	vector = ranker(RankerVector, func(n int) ([]index.Scored, error) {
		hits, err := w.VectorSearch(ctx, req.Query, n)
		if err != nil && ctx.Err() == nil {
			if spec, serr := w.embedSpec(); serr == nil && (spec.Kind == embed.KindOllama || spec.Kind == embed.KindOpenAI) {
				*vectorSkipped = "vector ranker skipped: " + err.Error()
				w.warn(fmt.Errorf("vectors: %w; searching full text and the symbol graph only", err))
				return nil, nil
			}
		}
		return hits, err
	})
	return text, vector, nil
}

// pathCandidates returns the ids of the memories with an anchor whose
// path matches pattern (Filter.Path), from the anchor index's keys, so
// that a path filter decodes only the memories it may keep; nil when
// pattern is "".
func (w *Workspace) pathCandidates(pattern string) (map[string]bool, error) {
	if pattern == "" {
		return nil, nil
	}
	out := map[string]bool{}
	last, match := "", false
	err := w.Store.MemoryAnchorPaths(func(path, id string) error {
		if path != last {
			last, match = path, PathMatches(pattern, path)
		}
		if match {
			out[id] = true
		}
		return nil
	})
	return out, err
}

// graphRanker adds the graph ranking: the memories near the seeds
// (GraphRank) and, unless only memories are asked for, the seed
// definitions themselves at ProximitySymbol, ahead of memories of equal
// proximity.
func (w *Workspace) graphRanker(req SearchRequest, f *rankList) error {
	seeds, files, err := w.graphSeeds(req)
	if err != nil || (len(seeds) == 0 && len(files) == 0) {
		return err
	}
	rank := 0
	if req.Kind != ResultMemory && req.Filter.keepsSymbols() {
		for _, d := range seeds {
			if req.Filter.KeepSymbol(d) {
				rank++
				d := d
				f.add(Result{Kind: ResultSymbol, Symbol: &d}, RankerPart{Ranker: RankerGraph, Rank: rank, Score: ProximitySymbol, Why: "named by the query"})
			}
		}
	}
	if req.Kind == ResultSymbol {
		return nil
	}
	hits, err := w.graphRank(seeds, files)
	if err != nil {
		return err
	}
	to, err := w.Incoming()
	if err != nil {
		return err
	}
	for _, h := range hits {
		var m *Memory // read later, if it ranks, unless a filter needs it now
		if !req.Filter.Empty() {
			if m, err = w.get(h.id); err != nil {
				continue // forgotten since its anchors were read
			}
			if annotateWith(to, m); !req.Filter.Keep(m) {
				continue
			}
		}
		rank++
		f.add(Result{Kind: ResultMemory, Memory: m, id: h.id}, RankerPart{Ranker: RankerGraph, Rank: rank, Score: h.proximity, Why: h.why})
	}
	return nil
}

// graphSeeds returns the definitions (named by the query, req.Symbols and
// the filter's symbol) and workspace-relative files (req.Files) that seed
// the graph ranker.
func (w *Workspace) graphSeeds(req SearchRequest) ([]index.Definition, []string, error) {
	seeds, err := w.QuerySymbols(req.Query)
	if err != nil {
		return nil, nil, err
	}
	names := append([]string(nil), req.Symbols...)
	if req.Filter.Symbol != "" {
		names = append(names, req.Filter.Symbol)
	}
	for _, s := range names {
		defs, err := w.Store.DefsBySymbol(s)
		if err == nil && len(defs) == 0 {
			defs, err = w.defsByName(s)
		}
		if err != nil {
			return nil, nil, err
		}
		seeds = append(seeds, defs[:min(len(defs), maxGraphSeeds)]...)
	}
	var files []string
	for _, p := range req.Files {
		rel, err := w.RelPath(p)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, rel)
	}
	return seeds, files, nil
}

// fuser accumulates weighted reciprocal ranks by result.
type fuser struct {
	byKey map[string]*Result
	order []string
	// weights are this query's (queryWeights); the zero value weighs
	// by RankerWeights.
	weights fusionWeights
}

// fusionWeights adjust RankerWeights to one query under a fusion
// profile: the text ranker's weight is multiplied by textScale, and its
// parts record coverage (RankerPart.Coverage) when known (set).
type fusionWeights struct {
	profile   FusionProfile // the zero value means BuiltinFusion
	set       bool
	textScale float64
	coverage  float64
}

// weight returns the weight of ranker's parts.
func (fw fusionWeights) weight(ranker string) float64 {
	switch {
	case fw.set && ranker == RankerText:
		return RankerWeights[ranker] * fw.textScale
	case ranker == RankerVector && fw.profile.Name != "":
		return fw.profile.VectorWeight
	}
	return RankerWeights[ranker]
}

// k returns the profile's RRF k (BuiltinRRFK for the zero profile).
func (fw fusionWeights) k() int {
	if fw.profile.RRFK > 0 {
		return fw.profile.RRFK
	}
	return BuiltinRRFK
}

// validate reports a profile that cannot weigh a fusion: RRFK ≤ 0,
// CoverageFull outside (0, 1] or a negative VectorWeight.
func (p FusionProfile) validate() error {
	if p.RRFK <= 0 || !(p.CoverageFull > 0 && p.CoverageFull <= 1) || p.VectorWeight < 0 {
		return fmt.Errorf("fusion profile %q: want RRF k > 0, coverage of full text weight in (0, 1] and vector weight ≥ 0, have %d, %g, %g", p.Name, p.RRFK, p.CoverageFull, p.VectorWeight)
	}
	return nil
}

// CoverageFull is the query coverage (QueryCoverage) from which the text
// ranker gets its full weight: the best full-text hit holds at least a
// third of the query's terms.
const CoverageFull = 1.0 / 3

// TextWeightScale is the factor on the text ranker's weight for a query
// whose best full-text hit has query coverage c: min(1, (c/CoverageFull)²).
//
// Why: a paraphrase shares no content word with its note, so BM25 still
// ranks 40 memories on the query's incidental words ("period" in "why are
// waiting periods randomized" matches the notes on billing periods), and
// under RRF every memory on both the text and the vector list (text rank
// 20 + vector rank 6: 1/80 + 1/66) outranks the vector list's first
// (1/61; figures at the k 60 of that time). Coverage is the coordination level of the best lexical match
// (the share of query terms it contains; Salton and McGill, "Introduction
// to Modern Information Retrieval", 1983), a post-retrieval predictor of
// how well the lexical ranker did; weighting each ranker of a fusion by
// its predicted quality for the query follows Markovits, Shtok, Kurland
// and Carmel, "Predicting query performance for fusion-based retrieval"
// (CIKM 2012). Identifier queries cover 1, tasks 0.2–0.8 (mostly ≥ 1/3),
// paraphrases 0–0.4 (mostly 0.12–0.2) on the ranking golden set
// (internal/rankeval); CoverageFull and the square were chosen on its
// tuning halves (docs/eval.md).
//
// It is BuiltinFusion's rule; a profile's own CoverageFull applies
// through FusionProfile.TextWeightScale.
func TextWeightScale(coverage float64) float64 { return BuiltinFusion.TextWeightScale(coverage) }

// queryWeights returns the weights of one query's parts under profile:
// the text ranker's scaled by the profile's TextWeightScale of the query
// coverage of its first hit (its record, read unless a filter read it:
// Workspace.get); unscaled when there is no text hit or that memory was
// forgotten meanwhile.
func (w *Workspace) queryWeights(query string, lists []rankList, profile FusionProfile) (fusionWeights, error) {
	for _, l := range lists {
		if len(l) == 0 || l[0].p.Ranker != RankerText {
			continue
		}
		m := l[0].r.Memory
		if m == nil {
			var err error
			if m, err = w.get(l[0].r.id); errors.Is(err, ErrNotFound) {
				return fusionWeights{profile: profile}, nil
			} else if err != nil {
				return fusionWeights{}, err
			}
		}
		c := QueryCoverage(query, m)
		return fusionWeights{profile: profile, set: true, textScale: profile.TextWeightScale(c), coverage: c}, nil
	}
	return fusionWeights{profile: profile}, nil
}

// QueryCoverage returns the share of query's distinct full-text terms
// (index.Terms of the query and of its identifiers split into words, as
// the text ranker queries: queryTexts) that occur in m's full-text
// document (SearchDocument: title, body, tags, type, anchor paths and
// symbol names, anchored code, each as written and with identifiers
// split into words, as searchDoc builds it): 0 to 1, 0 for a query
// without terms. The document's words (split at every rune that is
// neither a letter nor a digit) are deduplicated before they are
// analysed, so a long anchored snippet costs one stemming per distinct
// word.
func QueryCoverage(query string, m *Memory) float64 {
	q := map[string]bool{}
	for _, t := range index.Terms(query + " " + ident.Split(query)) {
		q[t] = true
	}
	if len(q) == 0 {
		return 0
	}
	seen := map[string]bool{}
	var words []string
	for _, text := range searchDoc(m).Fields {
		for _, w := range strings.FieldsFunc(text, notWordRune) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	found := 0
	for _, t := range index.Terms(strings.Join(words, " ")) {
		if q[t] {
			found++
			delete(q, t)
		}
	}
	return float64(found) / float64(found+len(q))
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func (f *fuser) add(r Result, p RankerPart) {
	k := r.Key()
	cur := f.byKey[k]
	if cur == nil {
		cur = &r
		f.byKey[k] = cur
		f.order = append(f.order, k)
	}
	if cur.Memory == nil {
		cur.Memory = r.Memory
	}
	p.Weight = f.weights.weight(p.Ranker)
	if f.weights.set && p.Ranker == RankerText {
		p.Coverage = f.weights.coverage
	}
	p.Contribution = p.Weight / float64(f.weights.k()+p.Rank)
	cur.Explain.Rankers = append(cur.Explain.Rankers, p)
	cur.Explain.RRF += p.Contribution
}

// keepsSymbols reports whether code symbols can pass f: filters on memory
// fields (type, tag, stale only, confidence) keep none.
func (f Filter) keepsSymbols() bool {
	return f.Type == "" && f.Tag == "" && f.Stale != "only" && f.MinConfidence == 0 && f.Superseded != "only"
}

// KeepSymbol reports whether definition d passes f's path pattern and
// symbol (a SCIP symbol, a display name such as "Execute", or
// "Type.Method").
func (f Filter) KeepSymbol(d index.Definition) bool {
	if !f.keepsSymbols() || (f.Path != "" && !PathMatches(f.Path, d.Path)) {
		return false
	}
	if f.Symbol == "" || d.Symbol == f.Symbol || d.Name == f.Symbol || scip.DisplayName(d.Symbol) == f.Symbol {
		return true
	}
	return false
}
