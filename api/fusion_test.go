package api_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// rememberOn stores a memory on a definition and returns its id.
func rememberOn(t *testing.T, e *api.Engine, symbol, text string) string {
	t.Helper()
	v, err := e.Remember(context.Background(), api.RememberArgs{Symbol: symbol, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// TestSearchMixedResults checks that gloss.search mixes labelled memories
// and code symbols, keeps Memories/Scores in step with Results, and that
// --explain's parts add up to each score.
func TestSearchMixedResults(t *testing.T) {
	e, _ := newEngine(t)
	ctx := context.Background()
	retryID := rememberOn(t, e, "retry", "Retries are capped at three attempts because upstream rate-limits bursts")
	rememberOn(t, e, "Handle", "Handle is the only entry point used by the router")
	res, err := e.Search(ctx, api.SearchArgs{Query: "retry attempts", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var mems []string
	for _, r := range res.Results {
		kinds = append(kinds, r.Kind)
		switch r.Kind {
		case "memory":
			if r.View == nil || r.Symbol != nil {
				t.Fatalf("memory result %+v", r)
			}
			mems = append(mems, r.ID)
		case "symbol":
			if r.Symbol == nil || r.View != nil {
				t.Fatalf("symbol result %+v", r)
			}
		default:
			t.Fatalf("unlabelled result %+v", r)
		}
		ex := r.Explain
		if ex == nil || len(ex.Rankers) == 0 {
			t.Fatalf("no explanation for %+v", r)
		}
		sum := 0.0
		for _, p := range ex.Rankers {
			if want := p.Weight / float64(memory.BuiltinRRFK+p.Rank); math.Abs(p.Contribution-want) > 1e-12 {
				t.Errorf("%s contribution %g, want %g", p.Ranker, p.Contribution, want)
			}
			sum += p.Contribution
		}
		if math.Abs(sum-ex.RRF) > 1e-12 || math.Abs(ex.RRF*ex.Confidence*ex.Trust*ex.Freshness-r.Score) > 1e-12 {
			t.Errorf("explanation %+v does not add up to score %g", ex, r.Score)
		}
	}
	if len(res.Results) < 2 || res.Results[0].Kind != "memory" || res.Results[0].ID != retryID {
		t.Fatalf("results %v: want the retry memory first", kinds)
	}
	if !strings.Contains(strings.Join(kinds, " "), "symbol") {
		t.Errorf("results %v: want the retry function too", kinds)
	}
	if len(res.Memories) != len(mems) || len(res.Scores) != len(mems) {
		t.Fatalf("Memories %d, Scores %d, memory results %d", len(res.Memories), len(res.Scores), len(mems))
	}
	for i, m := range res.Memories {
		if m.ID != mems[i] {
			t.Errorf("Memories[%d] = %s, want %s", i, m.ID, mems[i])
		}
	}
	// Without --explain there are no explanations.
	res, err = e.Search(ctx, api.SearchArgs{Query: "retry attempts"})
	if err != nil || len(res.Results) == 0 || res.Results[0].Explain != nil {
		t.Fatalf("search without explain = %+v, %v", res, err)
	}
}

// TestSearchKindFilters checks kind and the memory filters against symbols.
func TestSearchKindFilters(t *testing.T) {
	e, _ := newEngine(t)
	ctx := context.Background()
	rememberOn(t, e, "retry", "Retries are capped at three attempts")
	count := func(a api.SearchArgs) (mems, syms int) {
		t.Helper()
		a.Query = "retry"
		res, err := e.Search(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if r.Kind == "memory" {
				mems++
			} else {
				syms++
			}
		}
		return mems, syms
	}
	for _, c := range []struct {
		name       string
		args       api.SearchArgs
		mems, syms bool
	}{
		{"both", api.SearchArgs{}, true, true},
		{"memories only", api.SearchArgs{Kind: "memory"}, true, false},
		{"code only", api.SearchArgs{Kind: "symbol"}, false, true},
		{"type keeps memories alone", api.SearchArgs{Filter: memory.Filter{Type: "note"}}, true, false},
		{"other type", api.SearchArgs{Filter: memory.Filter{Type: "gotcha"}}, false, false},
		{"path matches both", api.SearchArgs{Filter: memory.Filter{Path: "*.go"}}, true, true},
		{"path matches none", api.SearchArgs{Filter: memory.Filter{Path: "web/*"}}, false, false},
		{"symbol", api.SearchArgs{Filter: memory.Filter{Symbol: "retry"}}, true, true},
		{"min confidence", api.SearchArgs{Filter: memory.Filter{MinConfidence: 0.5}}, true, false},
		{"stale only", api.SearchArgs{Filter: memory.Filter{Stale: "only"}}, false, false},
	} {
		m, s := count(c.args)
		if (m > 0) != c.mems || (s > 0) != c.syms {
			t.Errorf("%s: %d memories, %d symbols; want memories %v, symbols %v", c.name, m, s, c.mems, c.syms)
		}
	}
	if _, err := e.Search(ctx, api.SearchArgs{Query: "x", Kind: "file"}); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("bad kind: %v", err)
	}
	if _, err := e.Search(ctx, api.SearchArgs{Query: "x", File: "/elsewhere/x.go"}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("file outside: %v", err)
	}
}

// TestSearchStaleRankedLower checks a stale memory stays in the results,
// labelled, with freshness 0.5 and below an equal fresh one.
func TestSearchStaleRankedLower(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	fresh := rememberOn(t, e, "Handle", "pagination cursor is opaque")
	stale := rememberOn(t, e, "retry", "pagination cursor is opaque")
	src := strings.Replace(serviceGo, "i < 3", "i < 5", 1)
	if err := os.WriteFile(filepath.Join(root, "service.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Check(ctx, api.NoArgs{}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(ctx, api.SearchArgs{Query: "pagination cursor", Explain: true, Kind: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].ID != fresh || res.Results[1].ID != stale {
		t.Fatalf("results = %+v", res.Results)
	}
	if r := res.Results[1]; !r.Stale || r.Explain.Freshness != memory.StaleFactor {
		t.Errorf("stale result %+v, explanation %+v", r.View, r.Explain)
	}
}

// TestRememberWithoutPlace checks remember without --at or --symbol: a
// unique mentioned definition anchors it, otherwise it is stored with no
// anchor and works with list, check, show and context; a near-duplicate
// is reported.
func TestRememberWithoutPlace(t *testing.T) {
	e, _ := newEngine(t)
	ctx := context.Background()
	v, err := e.Remember(ctx, api.RememberArgs{Text: "`retry` loops three times before giving up"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Anchors) != 1 || !strings.HasSuffix(v.Anchors[0].Symbol, "/retry().") || !strings.Contains(v.Placement, "the one definition") {
		t.Fatalf("anchored to %+v (%s), want retry", v.Anchors, v.Placement)
	}
	v, err = e.Remember(ctx, api.RememberArgs{Text: "Fetch must stay a thin wrapper over `retry`: Server relies on it"})
	if err != nil || len(v.Anchors) != 1 || !strings.HasSuffix(v.Anchors[0].Symbol, "/retry().") {
		t.Fatalf("a code-shaped name wins over capitalized ones: %+v, %v", v, err)
	}
	for _, text := range []string{"We deploy on Tuesdays only", "Fetch and Handle share the URL validation"} {
		v, err := e.Remember(ctx, api.RememberArgs{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Anchors) != 0 || !strings.Contains(v.Placement, "workspace-level") {
			t.Fatalf("%q: anchors %+v, placement %q; want workspace-level", text, v.Anchors, v.Placement)
		}
	}
	dup, err := e.Remember(ctx, api.RememberArgs{Text: "Deploys happen on Tuesdays only"})
	if err != nil {
		t.Fatal(err)
	}
	if len(dup.NearDuplicates) != 1 || !dup.NearDuplicates[0].SameAnchor {
		t.Fatalf("near duplicates = %+v", dup.NearDuplicates)
	}
	if _, err := e.Check(ctx, api.NoArgs{}); err != nil {
		t.Fatal(err)
	}
	list, err := e.List(ctx, api.ListArgs{})
	if err != nil || len(list.Memories) != 5 {
		t.Fatalf("list = %d, %v", len(list.Memories), err)
	}
	if _, err := e.Show(ctx, api.ShowArgs{ID: dup.ID, Diff: true}); err != nil {
		t.Fatal(err)
	}
	brief, err := e.Context(ctx, api.ContextArgs{Task: "deploy on tuesdays"})
	if err != nil || !strings.Contains(brief.Markdown, "## Workspace") {
		t.Fatalf("context = %+v, %v", brief, err)
	}
	sugg, err := e.SuggestAnchors(ctx, api.SuggestAnchorsArgs{Text: "Server.Handle calls Fetch; see service.go"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sugg.Suggestions {
		got = append(got, s.Name+"@"+s.Path)
		if s.Why == "" || s.StartLine < 1 || s.EndLine < s.StartLine {
			t.Errorf("suggestion %+v", s)
		}
	}
	if strings.Join(got, " ") != "@service.go Handle@service.go Fetch@service.go" {
		t.Errorf("suggestions = %v", got)
	}
}
