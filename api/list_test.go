package api_test

import (
	"context"
	"encoding/json"
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
	got, err := e.List(ctx, api.NoArgs{})
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
	list, err := e.List(ctx, api.NoArgs{})
	if err != nil {
		t.Fatal(err)
	}
	type plain struct {
		Memories []memory.View `json:"memories"`
	}
	for _, r := range []api.MemoriesResult{list, {}, {Memories: []memory.View{}}} {
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(plain(r))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("MarshalJSON:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}
