package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestTeamMemoryFiles: a clone's first check loads the committed project
// memory files; a watched-file delete hides a memory and a create brings
// it back; events for a file named with an id prefix change nothing.
func TestTeamMemoryFiles(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	first, last := testutil.DefLines(t, mainGo, "func Retry")
	var v memory.View
	if err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "scope": "project",
		"range": Range{Start: Position{Line: first - 1}, End: Position{Line: last}}, "text": "Capped at n."}, &v); err != nil {
		t.Fatal(err)
	}
	id := v.ID
	testutil.Commit(t, root, "memory")

	parent := t.TempDir()
	testutil.Git(t, parent, "clone", "-q", root, "clone")
	clone, _ := filepath.EvalSymlinks(filepath.Join(parent, "clone"))
	c2 := start(t, clone, clientOpts{})
	list := func() map[string]string {
		var res api.MemoriesResult
		if err := c2.command("gloss.list", nil, &res); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, m := range res.Memories {
			out[m.ID] = m.Anchors[0].Status
		}
		return out
	}
	if got := list(); len(got) != 1 || got[id] != "fresh" {
		t.Fatalf("clone after its first check: %v", got)
	}
	file := filepath.Join(clone, ".gloss", "memories", id+".md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	event := func(path string, typ int) {
		c2.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []fileEvent{{URI: pathToURI(path), Type: typ}}})
	}
	os.Remove(file)
	event(file, 3)
	if got := list(); len(got) != 0 {
		t.Fatalf("after the file was deleted: %v", got)
	}
	os.WriteFile(file, data, 0o644)
	event(file, 1)
	if got := list(); got[id] != "fresh" {
		t.Fatalf("after the file came back: %v", got)
	}
	prefix := filepath.Join(clone, ".gloss", "memories", id[:12]+".md")
	os.WriteFile(prefix, data, 0o644)
	event(prefix, 1)
	os.Remove(prefix)
	event(prefix, 3)
	if got := list(); len(got) != 1 || got[id] != "fresh" {
		t.Fatalf("after events of a prefix-named file: %v", got)
	}

	// A merge conflict in the file: a diagnostic on it, the memory kept;
	// resolving the conflict clears it. The same while the file is open.
	conflict := strings.Replace(string(data), "\n\nCapped at n.", "\n\n<<<<<<< HEAD\nCapped at n.\n=======\nCapped at 5.\n>>>>>>> other", 1)
	uri := pathToURI(file)
	hasProblem := func(ds []Diagnostic) bool {
		return len(ds) == 1 && ds[0].Code == codeMemoryFile && ds[0].Range.Start.Line > 0
	}
	os.WriteFile(file, []byte(conflict), 0o644)
	event(file, 2)
	c2.waitDiags(uri, hasProblem)
	if got := list(); got[id] != "fresh" {
		t.Fatalf("conflicted file changed the memory: %v", got)
	}
	os.WriteFile(file, data, 0o644)
	event(file, 2)
	c2.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })
	c2.open(".gloss/memories/"+id+".md", conflict)
	os.WriteFile(file, []byte(conflict), 0o644)
	c2.notify("textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
	c2.waitDiags(uri, hasProblem)
}
