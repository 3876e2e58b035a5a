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
	w, repo := storedWorkspace(t, Options{})
	ctx := context.Background()
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	var reqs []RememberRequest
	for i := range 1000 {
		reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("memory %d", i), Path: repo + "/a.go", StartLine: 1 + i%20, EndLine: 2 + i%20, Tags: []string{fmt.Sprintf("t%d", i), "all"}})
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if _, err := w.CheckSummaries(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := w.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	all, more, err := w.ListPage(nil, nil, 0) // one page past the reuse
	if err != nil || more {
		t.Fatalf("whole listing: more %v, %v", more, err)
	}
	same(t, all, want)
	var got []View
	var after *ListCursor
	for {
		page, more, err := w.ListPage(after, nil, 300)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if !more {
			break
		}
		c := CursorOf(&page[len(page)-1])
		after = &c
	}
	same(t, got, want)
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
