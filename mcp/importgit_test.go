package mcp_test

import (
	"testing"

	"github.com/gloss-dev/gloss/api"
)

// import_git turns the fixture's one commit into a memory, then finds
// nothing new.
func TestImportGitTool(t *testing.T) {
	f := newFixture(t)
	var res api.ImportGitResult
	f.mustOK("import_git", map[string]any{}, &res)
	if res.Commits != 1 || res.Created != 1 || res.Anchors == 0 {
		t.Fatalf("import_git: %+v, want 1 commit, 1 memory", res)
	}
	f.mustOK("import_git", map[string]any{}, &res)
	if res.Commits != 0 || res.Created != 0 || !res.Incremental {
		t.Errorf("second import_git: %+v, want nothing new", res)
	}
	if r := f.call("import_git", map[string]any{"since": "--bad"}, nil); !r.IsError {
		t.Error("import_git with a bad since: no error")
	}
}
