package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// A page of ListPage is the listing's views, kept as they were although
// ListEach reuses its views every few blocks: 1,000 memories with tags
// and anchors (past eachBlock × eachBlocks), listed in pages of 300
// after cursors, and in one page, equal Summaries' views (confidence aside, computed at
// each call).
func TestListPageKeepsViews(t *testing.T) {
	w, _, want := listedWorkspace(t, func(repo string) []RememberRequest {
		var reqs []RememberRequest
		for i := range 1000 {
			reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("memory %d", i), Path: repo + "/a.go", StartLine: 1 + i%20, EndLine: 2 + i%20, Tags: []string{fmt.Sprintf("t%d", i), "all"}})
		}
		return reqs
	})
	all, more, err := w.ListPage(nil, nil, 0) // one page past the reuse
	if err != nil || more {
		t.Fatalf("whole listing: more %v, %v", more, err)
	}
	same(t, all, want)
	same(t, allPages(t, w, 300), want)
}

// same fails t unless got and want are the same views, confidence aside.
func same(t *testing.T, got, want []View) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("pages hold %d memories, the summaries %d", len(got), len(want))
	}
	for i := range want {
		got[i].Confidence, want[i].Confidence = 0, 0
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Fatalf("memory %d: page view\n%s\nsummary view\n%s", i, g, w)
		}
	}
}

// After a listing, pages without a filter are read from its place order
// (pageIndex), not from another scan of the summaries, and equal the
// listing; a memory written since makes the next page scan again, and
// pages with a filter always scan.
func TestListPageFromIndex(t *testing.T) {
	w, repo, want := listedWorkspace(t, func(repo string) []RememberRequest {
		var reqs []RememberRequest
		for i := range 40 {
			req := RememberRequest{Text: fmt.Sprintf("memory %d", i), Path: repo + "/a.go", StartLine: 1 + i%20, EndLine: 2 + i%20}
			if i%9 == 0 {
				req = RememberRequest{Text: fmt.Sprintf("unanchored %d", i), Unanchored: true}
			}
			reqs = append(reqs, req)
		}
		return reqs
	})
	ctx := context.Background()
	scans := w.summaryScans.Load()
	same(t, allPages(t, w, 7), want)
	if n := w.summaryScans.Load() - scans; n != 1 {
		t.Errorf("7 pages scanned the summaries %d times, want once", n)
	}
	scans = w.summaryScans.Load()
	same(t, allPages(t, w, 3), want)
	if n := w.summaryScans.Load() - scans; n != 0 {
		t.Errorf("pages after a listing scanned %d times, want none", n)
	}
	if _, err := w.Remember(ctx, RememberRequest{Text: "written since", Path: repo + "/a.go", StartLine: 3, EndLine: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CheckSummaries(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := w.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	scans = w.summaryScans.Load()
	same(t, allPages(t, w, 5), want)
	if n := w.summaryScans.Load() - scans; n != 1 {
		t.Errorf("pages after a write scanned %d times, want once", n)
	}
	scans = w.summaryScans.Load()
	if _, _, err := w.ListPage(nil, func(*View) bool { return true }, 5); err != nil {
		t.Fatal(err)
	}
	if n := w.summaryScans.Load() - scans; n != 1 {
		t.Errorf("a filtered page scanned %d times, want once", n)
	}
}

// allPages returns ListPage's pages of limit memories without a filter,
// from the start to the last, joined.
func allPages(t *testing.T, w *Workspace, limit int) []View {
	t.Helper()
	var got []View
	var after *ListCursor
	for {
		page, more, err := w.ListPage(after, nil, limit)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if !more {
			return got
		}
		c := CursorOf(&page[len(page)-1])
		after = &c
	}
}

// listedWorkspace is storedWorkspace, indexed, with the memories of reqs
// (made from the repository's root) remembered and their summaries
// current; it returns the workspace, the root and the summaries' views.
func listedWorkspace(t *testing.T, reqs func(repo string) []RememberRequest) (*Workspace, string, []View) {
	t.Helper()
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if _, errs := w.RememberBatch(ctx, reqs(repo)); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if _, err := w.CheckSummaries(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := w.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	return w, repo, want
}
