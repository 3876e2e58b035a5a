package api_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
)

// TestTeamCommandsRoundTrip: share, unshare, export, import and forgetAll
// through Client → JSON → Dispatch → Engine.
func TestTeamCommandsRoundTrip(t *testing.T) {
	e, root := newEngine(t)
	ctx := context.Background()
	c := api.Client{Caller: loopback{e}}
	uri := api.PathToURI(filepath.Join(root, "service.go"))
	m, err := c.Remember(ctx, api.RememberArgs{Location: api.Location{URI: uri, Range: api.LinesRange(8, 15)}, Text: "retry caps at 3"})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, ".gloss", "memories", m.ID+".md")
	if v, err := c.Share(ctx, api.IDArgs{ID: m.ID}); err != nil || v.Scope != "project" {
		t.Fatalf("share = %+v, %v", v, err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("shared memory has no file: %v", err)
	}
	ex, err := c.Export(ctx, api.ExportArgs{Format: "json"})
	if err != nil || ex.Count != 1 || !strings.Contains(ex.Text, m.ID) {
		t.Fatalf("export = %+v, %v", ex, err)
	}
	if v, err := c.Unshare(ctx, api.IDArgs{ID: m.ID}); err != nil || v.Scope != "personal" {
		t.Fatalf("unshare = %+v, %v", v, err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("unshared memory still has its file: %v", err)
	}
	if _, err := c.ForgetAll(ctx, api.ForgetAllArgs{}); err == nil {
		t.Fatalf("forgetAll without yes: want an error")
	}
	if f, err := c.ForgetAll(ctx, api.ForgetAllArgs{Yes: true}); err != nil || f.Forgotten != 1 {
		t.Fatalf("forgetAll = %+v, %v", f, err)
	}
	dump := filepath.Join(t.TempDir(), "memories.jsonl")
	os.WriteFile(dump, []byte(ex.Text), 0o644)
	if _, err := c.Import(ctx, api.ImportArgs{Path: "relative.jsonl"}); err == nil {
		t.Errorf("import of a relative path: want an error")
	}
	for i, want := range []int{1, 0} {
		res, err := c.Import(ctx, api.ImportArgs{Path: dump})
		if err != nil || len(res.Imported) != want || len(res.Skipped) != 1-want || len(res.Errors) != 0 {
			t.Fatalf("import %d = %+v, %v", i, res, err)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("imported project memory has no file: %v", err)
	}
	l, err := c.List(ctx, api.ListArgs{})
	if err != nil || len(l.Memories) != 1 || l.Memories[0].Scope != "project" || l.Memories[0].Anchors[0].Status != "fresh" {
		t.Fatalf("list after import = %+v, %v", l, err)
	}
}
