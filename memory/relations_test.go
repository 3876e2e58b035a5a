package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/memfile"
)

const relGo = `package svc

// Retry calls f until it succeeds, at most three times.
func Retry(f func() error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

// Fetch gets the page, retrying.
func Fetch() error {
	return Retry(func() error { return nil })
}
`

func rememberOn(t *testing.T, w *memory.Workspace, sym, text, scope string) *memory.Memory {
	t.Helper()
	m, err := w.Remember(context.Background(), memory.RememberRequest{Text: text, Symbol: sym, Scope: scope, Type: "decision"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRelateRoundTrip: a relation persists in the record, the relation
// index and the project memory file, and comes back from the file into a
// new store.
func TestRelateRoundTrip(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	old := rememberOn(t, w, "Retry", "Retries are capped at 3 because the upstream rate-limits bursts.", memory.ScopeProject)
	nu := rememberOn(t, w, "Retry", "Retries stop after 3 attempts; the cap protects the upstream.", memory.ScopeProject)
	if _, err := w.Relate(nu.ID, memory.RelSupersedes, strings.ToLower(old.ID), false); err != nil {
		t.Fatal(err)
	}
	got, err := w.Get(nu.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Relations) != 1 || got.Relations[0] != (memory.Relation{Kind: memory.RelSupersedes, ID: old.ID}) {
		t.Fatalf("relations = %+v", got.Relations)
	}
	o, _ := w.Get(old.ID)
	if err := w.Annotate(o); err != nil || len(o.SupersededBy) != 1 || o.SupersededBy[0] != nu.ID {
		t.Fatalf("superseded_by = %v, %v", o.SupersededBy, err)
	}
	file, err := os.ReadFile(filepath.Join(repo, memfile.Dir, nu.ID+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(file), "relations:") || !strings.Contains(string(file), old.ID) {
		t.Fatalf("memory file has no relation:\n%s", file)
	}
	// A clone: a new store loads the files.
	t.Setenv("GLOSS_HOME", t.TempDir())
	w2, err := memory.Open(repo, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, err := w2.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := w2.SyncMemoryFiles(context.Background()); err != nil {
		t.Fatal(err)
	}
	o2, err := w2.Get(old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Annotate(o2); err != nil || !o2.Superseded() {
		t.Fatalf("after loading the files: superseded_by = %v, %v", o2.SupersededBy, err)
	}
	// Removing the relation clears the index and the file.
	if _, err := w2.Relate(nu.ID, memory.RelSupersedes, old.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := w2.Annotate(o2); err != nil || o2.Superseded() {
		t.Fatalf("after remove: superseded_by = %v, %v", o2.SupersededBy, err)
	}
	file, _ = os.ReadFile(filepath.Join(repo, memfile.Dir, nu.ID+".md"))
	if strings.Contains(string(file), "relations:") {
		t.Fatalf("relation left in the file:\n%s", file)
	}
}

// TestRelateErrors: bad relations are refused with a clear error and
// change nothing.
func TestRelateErrors(t *testing.T) {
	w, _ := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	a := rememberOn(t, w, "Retry", "Retries are capped at 3.", "")
	b := rememberOn(t, w, "Fetch", "Fetch is idempotent.", "")
	c := rememberOn(t, w, "Fetch", "Fetch returns the last error.", "")
	if _, err := w.Relate(a.ID, memory.RelSupersedes, b.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Relate(b.ID, memory.RelSupersedes, c.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id, kind, target string
		remove                 bool
		want                   string
	}{
		{"self", a.ID, memory.RelConflictsWith, a.ID, false, "cannot relate to itself"},
		{"unknown kind", a.ID, "replaces", b.ID, false, "unknown relation"},
		{"unknown target", a.ID, memory.RelValidates, "01ARZ3NDEKTSV4RRFFQ69G5FAV", false, "not found"},
		{"unknown source", "01ARZ3NDEKTSV4RRFFQ69G5FAV", memory.RelValidates, a.ID, false, "not found"},
		{"direct cycle", b.ID, memory.RelSupersedes, a.ID, false, "cycle"},
		{"long cycle", c.ID, memory.RelSupersedes, a.ID, false, "cycle"},
		{"remove missing", a.ID, memory.RelValidates, b.ID, true, "has no relation"},
	} {
		_, err := w.Relate(tc.id, tc.kind, tc.target, tc.remove)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if got, _ := w.Get(c.ID); len(got.Relations) != 0 {
		t.Errorf("a refused relation was stored: %+v", got.Relations)
	}
	// Adding a relation twice changes nothing.
	if m, err := w.Relate(a.ID, memory.RelSupersedes, b.ID, false); err != nil || len(m.Relations) != 1 {
		t.Errorf("relate twice: %+v, %v", m, err)
	}
}

// TestForgetSuccessor: forgetting the successor shows the superseded
// memory again; forgetting the superseded one leaves a dangling relation
// shown as forgotten, which remove cleans up by full id.
func TestForgetSuccessor(t *testing.T) {
	w, _ := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	a := rememberOn(t, w, "Retry", "Retries are capped at 3.", "")
	b := rememberOn(t, w, "Retry", "Retry gives up after three attempts.", "")
	if _, err := w.Relate(b.ID, memory.RelSupersedes, a.ID, false); err != nil {
		t.Fatal(err)
	}
	if vis := w.Visible([]*memory.Memory{a, b}); len(vis) != 1 || vis[0].ID != b.ID {
		t.Fatalf("visible = %v", vis)
	}
	if _, err := w.Forget(b.ID); err != nil {
		t.Fatal(err)
	}
	if vis := w.Visible([]*memory.Memory{a}); len(vis) != 1 {
		t.Fatalf("a is still hidden after its successor was forgotten")
	}
	if _, err := w.Restore(b.ID); err != nil {
		t.Fatal(err)
	}
	if vis := w.Visible([]*memory.Memory{a}); len(vis) != 0 {
		t.Fatalf("restoring the successor did not hide a again")
	}
	if _, err := w.Forget(a.ID); err != nil {
		t.Fatal(err)
	}
	if got := w.RelatedTitle(a.ID); got != "(forgotten "+a.ID+")" {
		t.Errorf("dangling title = %q", got)
	}
	if m, err := w.Relate(b.ID, memory.RelSupersedes, a.ID, true); err != nil || len(m.Relations) != 0 {
		t.Errorf("remove dangling: %+v, %v", m, err)
	}
}

// TestMemoryFileBadRelation: a memory file with an unknown relation kind
// is a file problem, not a crash, and loads nothing wrong.
func TestMemoryFileBadRelation(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	m := rememberOn(t, w, "Retry", "Retries are capped at 3.", memory.ScopeProject)
	p := filepath.Join(repo, memfile.Dir, m.ID+".md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "source: user\n", "source: user\nrelations:\n  - kind: replaces\n    id: 01ARZ3NDEKTSV4RRFFQ69G5FAV\n", 1)
	testutil.WriteFiles(t, repo, map[string]string{filepath.ToSlash(filepath.Join(memfile.Dir, m.ID+".md")): bad})
	res, err := w.SyncMemoryFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, "unknown relation") {
		t.Fatalf("problems = %+v", res.Problems)
	}
}

// TestFlag: flagging sets needs_review with the reason, in the file too;
// a verify clears it.
func TestFlag(t *testing.T) {
	w, repo := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	m := rememberOn(t, w, "Retry", "Retries are capped at 5.", memory.ScopeProject)
	f, err := w.Flag(m.ID, "the loop stops at 3")
	if err != nil || !f.NeedsReview || f.ReviewReason != "the loop stops at 3" {
		t.Fatalf("flag = %+v, %v", f, err)
	}
	data, _ := os.ReadFile(filepath.Join(repo, memfile.Dir, m.ID+".md"))
	if !strings.Contains(string(data), "needs_review: true") || !strings.Contains(string(data), "review_reason: the loop stops at 3") {
		t.Fatalf("file:\n%s", data)
	}
	if _, err := w.Flag(m.ID, strings.Repeat("x", memory.MaxReviewReason+1)); err == nil {
		t.Error("an over-long reason was accepted")
	}
	v, err := w.Verify(context.Background(), m.ID)
	if err != nil || v.NeedsReview || v.ReviewReason != "" {
		t.Fatalf("verify left the flag: %+v, %v", v, err)
	}
}

// TestSearchSuperseded: search keeps a superseded memory, labelled, its
// score times SupersededFactor; the superseded filter drops or keeps only it.
func TestSearchSuperseded(t *testing.T) {
	ctx := context.Background()
	w, _ := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	old := rememberOn(t, w, "Retry", "Upstream throttling: retries are capped at three attempts.", "")
	nu := rememberOn(t, w, "Fetch", "Fetch pages through the upstream gateway.", "")
	if _, err := w.Relate(nu.ID, memory.RelSupersedes, old.ID, false); err != nil {
		t.Fatal(err)
	}
	search := func(f memory.Filter) []memory.Result {
		t.Helper()
		res, err := w.FusedSearch(ctx, memory.SearchRequest{Query: "upstream throttling retries", Kind: memory.ResultMemory, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := search(memory.Filter{})
	var got *memory.Result
	for i := range all {
		if all[i].Memory.ID == old.ID {
			got = &all[i]
		}
	}
	if got == nil || !got.Memory.Superseded() || got.Explain.Freshness != memory.SupersededFactor {
		t.Fatalf("superseded memory in search: %+v", got)
	}
	if res := search(memory.Filter{Superseded: "exclude"}); len(res) != 1 || res[0].Memory.ID != nu.ID {
		t.Errorf("exclude: %d results", len(res))
	}
	if res := search(memory.Filter{Superseded: "only"}); len(res) != 1 || res[0].Memory.ID != old.ID {
		t.Errorf("only: %d results", len(res))
	}
	if _, err := w.FusedSearch(ctx, memory.SearchRequest{Query: "x", Filter: memory.Filter{Superseded: "hide"}}); err == nil {
		t.Error("bad superseded filter: no error")
	}
}

// The views check prints from the stored summaries carry superseded_by
// as List's do (the summary of the superseded memory is not rewritten
// when the relation is added): in the whole result and in the streamed
// one, and not after the relation is removed.
func TestCheckViewsSuperseded(t *testing.T) {
	w, _ := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	ctx := context.Background()
	old := rememberOn(t, w, "Retry", "Retries are capped at 3 because the upstream rate-limits bursts.", memory.ScopeProject)
	nu := rememberOn(t, w, "Retry", "Retries stop after 3 attempts; the cap protects the upstream.", memory.ScopeProject)
	supersededOf := func(stage string) (whole, streamed []string) {
		t.Helper()
		res, err := w.CheckViews(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Views {
			if v.ID == old.ID {
				whole = v.SupersededBy
			}
		}
		sres, err := w.CheckSummaries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = sres.Summaries.Each(func(v *memory.View) error {
			if v.ID == old.ID {
				streamed = slices.Clone(v.SupersededBy)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return whole, streamed
	}
	if a, b := supersededOf("before"); a != nil || b != nil {
		t.Fatalf("before the relation: superseded_by %v / %v", a, b)
	}
	if _, err := w.Relate(nu.ID, memory.RelSupersedes, old.ID, false); err != nil {
		t.Fatal(err)
	}
	if a, b := supersededOf("after"); !slices.Equal(a, []string{nu.ID}) || !slices.Equal(b, []string{nu.ID}) {
		t.Fatalf("after the relation: superseded_by %v / %v, want [%s]", a, b, nu.ID)
	}
	if _, err := w.Relate(nu.ID, memory.RelSupersedes, old.ID, true); err != nil {
		t.Fatal(err)
	}
	if a, b := supersededOf("removed"); a != nil || b != nil {
		t.Fatalf("after removing the relation: superseded_by %v / %v", a, b)
	}
}
