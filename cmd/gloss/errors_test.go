package main

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

// The errors of `gloss remember` name the user's 1-based lines (not only
// the protocol's 0-based range) and the command once.
func TestRememberErrorMessages(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/cli\n", "main.go": cliGo})
	testutil.Commit(t, repo, "init")
	_, _, err := run(t, repo, "", "--no-daemon", "remember", "past the end", "--at", "main.go:100-101")
	if err == nil || !strings.Contains(err.Error(), "lines 100-101 are out of bounds") || !strings.Contains(err.Error(), "main.go has 18 lines") {
		t.Errorf("past the end: %v, want lines 100-101 named", err)
	}
	_, _, err = run(t, repo, "", "--no-daemon", "remember", "outside", "--at", "../x.go:1-2")
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") || strings.Count(err.Error(), "gloss.remember") != 1 {
		t.Errorf("outside: %v, want one gloss.remember prefix", err)
	}
}
