package main

import (
	"strings"
	"testing"
)

// Lines that cover one definition plus blank lines around it (an
// editor's paragraph selection) anchor to the definition, as the exact
// lines do, on both the single and the --batch path; a span that takes in
// code of another definition stays a span.
func TestAnchorIgnoresBlankEdgeLines(t *testing.T) {
	_, repo := cliRepo(t)
	if _, _, err := run(t, repo, "", "--no-daemon", "index"); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"main.go:3-12", "main.go:3-13", "main.go:2-13", "main.go:4-13"} {
		out, _, err := run(t, repo, "", "--no-daemon", "remember", "note "+at, "--at", at, "--json")
		if err != nil || !strings.Contains(out, `"kind": "symbol"`) || !strings.Contains(out, "/Retry().") {
			t.Errorf("remember --at %s: %v, want a symbol anchor on Retry:\n%s", at, err, out)
		}
	}
	out, _, err := run(t, repo, `{"text":"batch","at":"main.go:3-13"}`+"\n", "--no-daemon", "remember", "--batch", "-", "--json")
	if err != nil || !strings.Contains(out, `"kind":"symbol"`) || !strings.Contains(out, "/Retry().") {
		t.Errorf("batch main.go:3-13: %v, want a symbol anchor on Retry:\n%s", err, out)
	}
	out, _, err = run(t, repo, "", "--no-daemon", "remember", "two", "--at", "main.go:3-15", "--json")
	if err != nil || !strings.Contains(out, `"kind": "span"`) {
		t.Errorf("remember --at main.go:3-15 (into the next function): %v, want a span:\n%s", err, out)
	}
}
