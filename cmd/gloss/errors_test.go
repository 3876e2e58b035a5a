package main

import (
	"strings"
	"testing"
)

// The errors of `gloss remember` name the user's 1-based lines (not only
// the protocol's 0-based range) and the command once.
func TestRememberErrorMessages(t *testing.T) {
	_, repo := cliRepo(t)
	_, _, err := run(t, repo, "", "--no-daemon", "remember", "past the end", "--at", "main.go:100-101")
	if err == nil || !strings.Contains(err.Error(), "lines 100-101 are out of bounds") || !strings.Contains(err.Error(), "main.go has 18 lines") {
		t.Errorf("past the end: %v, want lines 100-101 named", err)
	}
	_, _, err = run(t, repo, "", "--no-daemon", "remember", "outside", "--at", "../x.go:1-2")
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") || strings.Count(err.Error(), "gloss.remember") != 1 {
		t.Errorf("outside: %v, want one gloss.remember prefix", err)
	}
}
