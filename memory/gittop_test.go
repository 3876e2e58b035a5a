package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// TestGitTopFastMatchesGit checks that the work tree gitTopFast finds is
// the one `git rev-parse --show-toplevel` names, in a repository's root
// and subdirectory, a linked worktree and a submodule-like .git file, and
// that it defers to git where git might answer otherwise.
func TestGitTopFastMatchesGit(t *testing.T) {
	testutil.Hermetic(t)
	repo, _ := filepath.EvalSymlinks(testutil.InitRepo(t))
	testutil.WriteFiles(t, repo, map[string]string{"a/b/c.go": "package b\n"})
	testutil.Commit(t, repo, "init")
	wt := filepath.Join(t.TempDir(), "wt")
	testutil.Git(t, repo, "worktree", "add", "-q", wt)
	wt, _ = filepath.EvalSymlinks(wt)
	for _, dir := range []string{repo, filepath.Join(repo, "a", "b"), wt, filepath.Join(wt, "a")} {
		want := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "--show-toplevel"))
		got, ok := gitTopFast(dir)
		if !ok || got != want {
			t.Errorf("gitTopFast(%s) = %q, %v; git says %q", dir, got, ok, want)
		}
	}
	if _, ok := gitTopFast(filepath.Join(repo, ".git")); ok {
		t.Error("a directory inside .git was answered without git")
	}
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	if _, ok := gitTopFast(repo); ok {
		t.Error("GIT_DIR set, answered without git")
	}
	os.Unsetenv("GIT_DIR")
	cfg := filepath.Join(repo, ".git", "config")
	data, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append(data, "[core]\n\tworktree = /elsewhere\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := gitTopFast(repo); ok {
		t.Error("core.worktree set, answered without git")
	}
}
