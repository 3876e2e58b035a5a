package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/memory"
)

// List answers from the stored summaries (memory.Workspace.ListViews)
// what it answered from the records: the same views in the same place
// order, with superseded_by, access statistics, a flag, an unanchored
// memory and anchors on two lines.
func TestListFromSummariesAsRecords(t *testing.T) {
	e, root := newEngine(t)
	w := e.Host.(api.Single).W
	ctx := context.Background()
	var ids []string
	for _, req := range []memory.RememberRequest{
		{Text: "server pages", Path: root + "/service.go", StartLine: 20, EndLine: 22},
		{Text: "fetch first", Type: "gotcha", Path: root + "/service.go", StartLine: 8, EndLine: 14, Tags: []string{"a", "b"}},
		{Text: "no place at all", Unanchored: true},
		{Text: "handle <it> & more", Type: "decision", Path: root + "/service.go", StartLine: 3, EndLine: 6},
	} {
		m, err := w.Remember(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	if _, err := w.Relate(ids[3], "supersedes", ids[0], false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Flag(ids[1], "wrong"); err != nil {
		t.Fatal(err)
	}
	w.RecordAccess(ids[1])
	if err := w.FlushAccess(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CheckSummaries(ctx); err != nil { // makes the summaries current
		t.Fatal(err)
	}
	if _, ok, err := w.ListViews(); err != nil || !ok {
		t.Fatalf("summaries not current: %v %v", ok, err)
	}
	got, err := e.List(ctx, api.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Annotate(ms...)
	stats, err := w.Accesses()
	if err != nil {
		t.Fatal(err)
	}
	memory.ApplyAccess(ms, stats)
	memory.SortByPlace(ms)
	want := api.MemoriesResult{Memories: memory.Views(ms)}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("from summaries:\n%s\nfrom records:\n%s", gotJSON, wantJSON)
	}
	if len(got.Memories) != 4 || len(got.Memories[len(got.Memories)-1].Anchors) != 0 {
		t.Fatalf("want 4 memories, the unanchored last: %s", gotJSON)
	}
}

// MemoriesResult's MarshalJSON writes what encoding/json writes for the
// struct: views of every kind (the list above's, an empty and a nil
// list).
func TestMemoriesResultJSONAsReflection(t *testing.T) {
	e, root := newEngine(t)
	w := e.Host.(api.Single).W
	ctx := context.Background()
	for _, req := range []memory.RememberRequest{
		{Text: "a <b> & \"c\"", Path: root + "/service.go", StartLine: 20, EndLine: 22, Tags: []string{"x"}},
		{Text: "no place", Unanchored: true},
	} {
		if _, err := w.Remember(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	list, err := e.List(ctx, api.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	type plain struct {
		Memories []memory.View `json:"memories"`
	}
	for _, r := range []api.MemoriesResult{{Memories: list.Memories}, {}, {Memories: []memory.View{}}} {
		sameJSON(t, r, plain(r))
	}
	type plainList struct {
		Memories   []memory.View `json:"memories"`
		NextCursor string        `json:"next_cursor,omitempty"`
	}
	for _, r := range []api.ListResult{list, {Memories: list.Memories[:1], NextCursor: "eyJpIjoiYSJ9\"<&"}, {}} {
		sameJSON(t, r, plainList(r))
	}
}

// sameJSON fails t unless json.Marshal gives the same bytes for r (a
// result with its own MarshalJSON) and plain (the same fields in a type
// without one).
func sameJSON(t *testing.T, r, plain any) {
	t.Helper()
	got, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%T MarshalJSON:\n%s\nencoding/json:\n%s", r, got, want)
	}
}

// Pages of gloss.list (Limit, Cursor) give, one after the other, the
// whole list's memories in its order, filtered by type and staleness as
// the whole list is; a memory written between two pages after the
// cursor's place comes in a later page, one written before it shifts
// nothing; bad arguments are CodeInvalidParams errors. Run from the
// summaries and from the records (an older store's).
func TestListPages(t *testing.T) {
	for _, summaries := range []bool{true, false} {
		e, root := newEngine(t)
		w := e.Host.(api.Single).W
		ctx := context.Background()
		types := []string{"gotcha", "decision", "note"}
		for i := range 23 {
			req := memory.RememberRequest{Text: fmt.Sprintf("memory %d", i), Type: types[i%3], Path: root + "/service.go", StartLine: 1 + i%9, EndLine: 2 + i%9}
			if i%7 == 0 {
				req = memory.RememberRequest{Text: fmt.Sprintf("unanchored %d", i), Type: types[i%3], Unanchored: true}
			}
			if _, err := w.Remember(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.CheckSummaries(ctx); err != nil {
			t.Fatal(err)
		}
		if !summaries { // an older gloss's summary format: List reads the records
			b := w.Store.NewMemoryBatch()
			if err := b.SetSummaryFormat(1); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok, _ := w.ListViews(); ok != summaries {
			t.Fatalf("summaries current = %v, want %v", ok, summaries)
		}
		for _, args := range []api.ListArgs{{}, {Type: "decision"}, {Stale: true}} {
			whole, err := e.List(ctx, args)
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int{1, 4, 22, 23, 50} {
				a := args
				a.Limit = limit
				var got []string
				for pages := 0; ; pages++ {
					if pages > len(whole.Memories)+1 {
						t.Fatalf("%+v: pages do not end", a)
					}
					page, err := e.List(ctx, a)
					if err != nil {
						t.Fatal(err)
					}
					if len(page.Memories) > limit {
						t.Fatalf("%+v: %d memories in a page", a, len(page.Memories))
					}
					for _, v := range page.Memories {
						v.Confidence = 0 // computed at the time of the call
						data, _ := json.Marshal(v)
						got = append(got, string(data))
					}
					if page.NextCursor == "" {
						break
					}
					a.Cursor = page.NextCursor
				}
				var want []string
				for _, v := range whole.Memories {
					v.Confidence = 0
					data, _ := json.Marshal(v)
					want = append(want, string(data))
				}
				if !slices.Equal(got, want) {
					t.Fatalf("summaries %v, %+v: pages give\n%v\nwhole list\n%v", summaries, a, got, want)
				}
			}
		}
		// A write between two pages.
		first, err := e.List(ctx, api.ListArgs{Limit: 10})
		if err != nil || first.NextCursor == "" {
			t.Fatalf("first page: %v, %v", first, err)
		}
		late, err := w.Remember(ctx, memory.RememberRequest{Text: "late, at the end of the file", Path: root + "/service.go", StartLine: 20, EndLine: 21})
		if err != nil {
			t.Fatal(err)
		}
		early, err := w.Remember(ctx, memory.RememberRequest{Text: "early, at the top", Path: root + "/service.go", StartLine: 1, EndLine: 1})
		if err != nil {
			t.Fatal(err)
		}
		rest, err := e.List(ctx, api.ListArgs{Cursor: first.NextCursor})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, v := range append(first.Memories, rest.Memories...) {
			if seen[v.ID] {
				t.Fatalf("memory %s in two pages", v.ID)
			}
			seen[v.ID] = true
		}
		if _, ok, _ := w.ListViews(); ok != summaries {
			t.Fatalf("after the writes, summaries current = %v, want %v", ok, summaries)
		}
		if !seen[late.ID] || seen[early.ID] || len(seen) != 24 {
			t.Fatalf("after two writes: %d memories listed, late %v, early %v; want 24, true, false", len(seen), seen[late.ID], seen[early.ID])
		}
		for _, bad := range []api.ListArgs{{Limit: -1}, {Type: "gotchas"}, {Cursor: "nope"}, {Cursor: "e30"}} {
			_, err := e.List(ctx, bad)
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Code != api.CodeInvalidParams {
				t.Errorf("List(%+v) = %v, want an invalid-params error", bad, err)
			}
		}
	}
}
