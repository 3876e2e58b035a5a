package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// A fresh clone whose repository carries shared memories
// (.gloss/memories/) and a data home that never indexed it: list,
// search and status say why they show nothing and what to run, and after
// gloss index the memory is there and the hint is gone.
func TestUnindexedCloneHint(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/cli\n", "main.go": cliGo})
	testutil.Commit(t, repo, "code")
	if _, _, err := run(t, repo, "", "--no-daemon", "remember", "Capped at 3", "--at", "main.go:4-12", "--scope", "project"); err != nil {
		t.Fatal(err)
	}
	testutil.Commit(t, repo, "memories")
	t.Setenv("GLOSS_HOME", filepath.Join(t.TempDir(), "other-home"))
	for _, args := range [][]string{{"list"}, {"search", "capped"}, {"status"}} {
		_, errOut, err := run(t, repo, "", append([]string{"--no-daemon"}, args...)...)
		if err != nil || !strings.Contains(errOut, "not indexed yet") || !strings.Contains(errOut, "1 shared memory in .gloss/memories") ||
			!strings.Contains(errOut, "gloss index") {
			t.Errorf("%v before gloss index: %v, stderr %q, want the hint", args, err, errOut)
		}
	}
	if _, _, err := run(t, repo, "", "--no-daemon", "index"); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, repo, "", "--no-daemon", "list")
	if err != nil || !strings.Contains(out, "Capped at 3") || strings.Contains(errOut, "not indexed") {
		t.Errorf("list after gloss index: %v\n%s\nstderr %q", err, out, errOut)
	}
}
