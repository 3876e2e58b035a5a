package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

var graphFiles = map[string]string{
	"go.mod": "module example.com/g\n",
	"a/a.go": "package a\n\nimport \"example.com/g/b\"\n\n// Alpha runs.\nfunc Alpha() int { return b.Beta() }\n\n// Tree holds.\ntype Tree struct{}\n\n// Mow is a method.\nfunc (Tree) Mow() int { return 1 }\n",
	"b/b.go": "package b\n\n// Beta computes.\nfunc Beta() int { return gamma() }\n\nfunc gamma() int { return 2 }\n\nfunc Other() int { return 3 }\n",
	"c/c.go": "package c\n\nimport \"example.com/g/a\"\n\nfunc Use() int { return a.Alpha() }\n",
	"d/d.go": "package d\n\nfunc Far() int { return 4 }\n",
}

// TestGraphProximity checks the proximity of memories to a query symbol
// (itself, callers, callees, file, importers) and to a current file.
func TestGraphProximity(t *testing.T) {
	w, _ := indexedWorkspace(t, graphFiles)
	ctx := context.Background()
	ids := map[string]string{}
	for _, s := range []string{"Alpha", "Beta", "gamma", "Other", "Use", "Far", "Tree", "Tree.Mow"} {
		m, err := w.Remember(ctx, memory.RememberRequest{Text: "note on " + s, Symbol: s})
		if err != nil {
			t.Fatal(err)
		}
		ids[m.ID] = s
	}
	rank := func(seedNames []string, files []string) map[string]float64 {
		t.Helper()
		seeds, err := w.QuerySymbols(strings.Join(seedNames, " "))
		if err != nil {
			t.Fatal(err)
		}
		hits, err := w.GraphRank(seeds, files)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range hits {
			out[ids[h.Memory.ID]] = h.Proximity
		}
		return out
	}
	got := rank([]string{"Beta"}, nil)
	want := map[string]float64{"Beta": memory.ProximitySymbol, "Alpha": memory.ProximityCalls, "gamma": memory.ProximityCalls, "Other": memory.ProximitySameFile, "Tree": memory.ProximityImports, "Tree.Mow": memory.ProximityImports}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("seed Beta: %s proximity %g, want %g (all %v)", k, got[k], v, got)
		}
	}
	if _, ok := got["Far"]; ok {
		t.Errorf("seed Beta: Far is unrelated, got %v", got)
	}
	got = rank([]string{"Tree"}, []string{"c/c.go"})
	for k, v := range map[string]float64{"Use": memory.ProximityFile, "Tree": memory.ProximitySymbol, "Tree.Mow": memory.ProximityContains, "Alpha": memory.ProximitySameFile} {
		if got[k] != v {
			t.Errorf("seed Tree, file c.go: %s proximity %g, want %g (all %v)", k, got[k], v, got)
		}
	}
	// The fused search ranks the graph neighbor above an unrelated match.
	res, err := w.FusedSearch(ctx, memory.SearchRequest{Query: "note Beta", Kind: memory.ResultMemory})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, r := range res {
		pos[ids[r.Memory.ID]] = i
	}
	if pos["Beta"] != 0 || pos["Alpha"] > pos["Far"] {
		t.Errorf("fused order %v", pos)
	}
}

// TestCodeSearchFollowsIndexAndBuffers checks the code-symbol index: doc
// comments and split names are searchable, a re-index adds new
// definitions, an unsaved buffer's definitions are found until its
// document is closed, and a reopened workspace does not rebuild.
func TestCodeSearchFollowsIndexAndBuffers(t *testing.T) {
	w, repo := indexedWorkspace(t, graphFiles)
	ctx := context.Background()
	names := func(q string) string {
		t.Helper()
		hits, err := w.SearchCode(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Def.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names("computes"); got != "Beta" {
		t.Errorf("doc comment: %q", got)
	}
	path := filepath.Join(repo, "d", "d.go")
	if err := os.WriteFile(path, []byte("package d\n\nfunc Far() int { return 4 }\n\n// uploadToColdStorage moves blobs.\nfunc uploadToColdStorage() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(5 * time.Second)
	_ = os.Chtimes(path, later, later)
	if _, err := w.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if got := names("cold storage"); got != "uploadToColdStorage" {
		t.Errorf("after re-index: %q", got)
	}
	buf := []byte("package d\n\nfunc Far() int { return 4 }\n\nfunc rotateSigningKeys() {}\n")
	if r := w.ResolveDocumentCached(path, buf, 1); r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := names("signing keys"); got != "rotateSigningKeys" {
		t.Errorf("unsaved buffer: %q", got)
	}
	if got := names("cold storage"); got != "" {
		t.Errorf("unsaved buffer removed uploadToColdStorage, got %q", got)
	}
	w.ForgetDocument(path)
	if got := names("signing keys"); got != "" {
		t.Errorf("closed document: %q", got)
	}
	if got := names("cold storage"); got != "uploadToColdStorage" {
		t.Errorf("closed document, stored definitions back: %q", got)
	}
}

// TestWorkspaceLevelProjectMemory checks that a memory with no anchor
// shared with the team is written to its file and loaded by a clone's
// fresh store, and that check leaves it alone.
func TestWorkspaceLevelProjectMemory(t *testing.T) {
	w, repo := indexedWorkspace(t, graphFiles)
	ctx := context.Background()
	m, err := w.Remember(ctx, memory.RememberRequest{Text: "Releases are cut on Mondays", Scope: memory.ScopeProject, AutoAnchor: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Anchors) != 0 || w.MemoryFile(m) == "" {
		t.Fatalf("anchors %+v, file %q", m.Anchors, w.MemoryFile(m))
	}
	if _, err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := memory.Open(repo, memory.Options{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.SyncMemoryFiles(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := other.Get(m.ID)
	if err != nil || got.Body != m.Body || len(got.Anchors) != 0 || got.Stale() {
		t.Fatalf("loaded %+v, %v", got, err)
	}
}
