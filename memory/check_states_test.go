package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// checkPathsNow returns the paths the next check would re-resolve.
func checkPathsNow(t *testing.T, w *Workspace) []string {
	t.Helper()
	r, err := w.newResolver()
	if err != nil {
		t.Fatal(err)
	}
	defer r.release()
	paths, err := w.checkPaths(r)
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestRememberBatchKeepsCheckStates: memories stored by RememberBatch
// leave the check state of their files current (the first check after
// an ingest re-resolves nothing the ingest resolved), except in a file
// whose earlier memories were never checked since a write; the first
// batch of a new store leaves its summaries current; and an edit after
// the ingest is still found by the next check.
func TestRememberBatchKeepsCheckStates(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{
		"go.mod": "module example.com/m\n",
		"a.go":   "package m\n\nfunc A(x int) int {\n\treturn x + 1\n}\n\nfunc A2() {}\n",
		"b.go":   "package m\n\nfunc B(x int) int {\n\treturn x * 2\n}\n",
		"c.go":   "package m\n\nfunc C() {}\n",
	})
	w, err := Open(repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	first, err := w.Remember(ctx, RememberRequest{Text: "note on C", Path: filepath.Join(repo, "c.go"), StartLine: 3})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Store.SummariesCurrent(); err != nil || !ok {
		t.Fatalf("after the first write of a new store: summaries current %v, %v", ok, err)
	}
	if f, err := w.Store.SummaryFormat(); err != nil || f != summaryFormat {
		t.Fatalf("summary format %d, %v; want %d", f, err, summaryFormat)
	}
	if got := checkPathsNow(t, w); len(got) != 0 {
		t.Fatalf("after Remember: check would visit %v, want none", got)
	}
	// An update deletes c.go's state: its memory is not checked since.
	title := "C's note"
	if _, err := w.Update(ctx, first.ID, UpdateRequest{Title: &title}); err != nil {
		t.Fatal(err)
	}
	var reqs []RememberRequest
	for _, r := range []struct {
		path       string
		start, end int
	}{{"a.go", 3, 5}, {"a.go", 7, 7}, {"b.go", 3, 5}, {"c.go", 3, 3}} {
		reqs = append(reqs, RememberRequest{Text: "note at " + r.path, Path: filepath.Join(repo, r.path), StartLine: r.start, EndLine: r.end})
	}
	if _, errs := w.RememberBatch(ctx, reqs); slices.ContainsFunc(errs, func(err error) bool { return err != nil }) {
		t.Fatal(errs)
	}
	r, err := w.newResolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.go", "b.go"} {
		data, err := w.Store.CheckState(p)
		var cs checkState
		if err != nil || data == nil || json.Unmarshal(data, &cs) != nil {
			t.Fatalf("%s: check state %q, %v; want one", p, data, err)
		}
		if cs.Hash != r.fileHash(p) || cs.Stale {
			t.Fatalf("%s: check state %+v, want hash %s, not stale", p, cs, r.fileHash(p))
		}
	}
	r.release()
	if got := checkPathsNow(t, w); !slices.Equal(got, []string{"c.go"}) {
		t.Fatalf("after the batch: check would visit %v, want [c.go]", got)
	}
	res, err := w.CheckViews(ctx)
	if err != nil || len(res.Views) != 5 || res.Resolved != 0 {
		t.Fatalf("first check: %d views, %d resolved, %v; want 5, 0", len(res.Views), res.Resolved, err)
	}
	if got := checkPathsNow(t, w); len(got) != 0 {
		t.Fatalf("after the check: it would visit %v, want none", got)
	}
	// An edit after the ingest is found, and only a.go is re-resolved.
	testutil.WriteFiles(t, repo, map[string]string{"a.go": "package m\n\nfunc A(x int) int {\n\treturn x + 2\n}\n\nfunc A2() {}\n"})
	if res, err = w.CheckViews(ctx); err != nil || res.Resolved != 2 {
		t.Fatalf("a.go edited: %d resolved, %v; want 2", res.Resolved, err)
	}
	stale := map[string]int{}
	for _, v := range res.Views {
		if v.Stale {
			stale[fmt.Sprintf("%s:%d", v.Anchors[0].Path, v.Anchors[0].StartLine)]++
		}
	}
	if len(stale) != 1 || stale["a.go:3"] != 1 {
		t.Fatalf("stale memories by place %v, want the one on A", stale)
	}
}

// TestSummaryPlaceOfJSON: the place of a JSON summary (an older store's)
// is read by decoding it.
func TestSummaryPlaceOfJSON(t *testing.T) {
	data, err := json.Marshal(View{ID: "m1", Anchors: []AnchorView{{Path: "x/y.go", StartLine: 12}}})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := summaryPlaceOf(data)
	if err != nil || string(pl.path) != "x/y.go" || pl.line != 12 || !pl.anchored {
		t.Fatalf("place %+v, %v", pl, err)
	}
	if pl, err = summaryPlaceOf([]byte(`{"id":"m2"}`)); err != nil || pl.anchored {
		t.Fatalf("anchorless: %+v, %v", pl, err)
	}
	if _, err = summaryPlaceOf([]byte{summaryMagic, 200}); err == nil {
		t.Fatal("damaged summary: want an error")
	}
}
