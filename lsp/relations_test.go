package lsp

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestSupersedeHidesInHoverAndLens: remembering a near-duplicate offers
// "Supersede?"; accepting it hides the old memory from hover and code
// lens, and the new memory's hover names it.
func TestSupersedeHidesInHoverAndLens(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	c.choose = "Supersede"
	old := rememberRetry(t, c)
	first, last := testutil.DefLines(t, mainGo, "func Retry")
	nu := c.remember("main.go", first, last, "Retry cap is n", "Retries are capped at n attempts because the upstream rate-limits bursts.")
	if nu.Decision == nil || nu.Decision.Action != memory.DecisionAdd || len(nu.Decision.Candidates) != 1 || nu.Decision.Candidates[0] != old.ID {
		t.Fatalf("decision = %+v", nu.Decision)
	}
	c.waitFor("the supersede confirmation", func() bool {
		for _, m := range c.msgs {
			if strings.Contains(m, "now supersedes 1 memory") {
				return true
			}
		}
		return false
	})
	line := testutil.LineOf(t, mainGo, "for i := 0") - 1
	h := c.hover("main.go", Position{Line: line, Character: 3})
	if h == nil || !strings.Contains(h.Contents.Value, "Retry cap is n") || !strings.Contains(h.Contents.Value, "_supersedes: “Retry cap”_") ||
		strings.Contains(h.Contents.Value, "**Retry cap**") {
		t.Fatalf("hover after supersede:\n%v", h)
	}
	if ls := c.lenses("main.go"); len(ls) != 1 || ls[0].Command.Title != "1 memory" {
		t.Errorf("lenses after supersede = %+v", ls)
	}
	// The superseded memory is still listed, labelled.
	var show struct {
		SupersededBy []string `json:"superseded_by"`
	}
	if err := c.command("gloss.show", map[string]any{"id": old.ID}, &show); err != nil || len(show.SupersededBy) != 1 || show.SupersededBy[0] != nu.ID {
		t.Errorf("show of the superseded memory: %+v, %v", show, err)
	}
	// Removing the relation shows it again.
	if err := c.command("gloss.relate", map[string]any{"id": nu.ID, "relation": "supersedes", "target": old.ID, "remove": true}, nil); err != nil {
		t.Fatal(err)
	}
	if ls := c.lenses("main.go"); len(ls) != 1 || ls[0].Command.Title != "2 memories" {
		t.Errorf("lenses after unrelate = %+v", ls)
	}
}

// TestThisMemoryIsWrong: a memory under the cursor gets the quick fix
// "This memory is wrong", which flags it (gloss.flag) for review; the
// hover then says so.
func TestThisMemoryIsWrong(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	line := testutil.LineOf(t, mainGo, "for i := 0") - 1
	var acts []CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": TextDocumentIdentifier{URI: c.uri("main.go")},
		"range": Range{Start: Position{Line: line}, End: Position{Line: line}}, "context": map[string]any{"diagnostics": []Diagnostic{}}}, &acts)
	var wrong *CodeAction
	for i, a := range acts {
		if a.Command != nil && a.Command.Command == "gloss.flag" {
			wrong = &acts[i]
		}
	}
	if wrong == nil || wrong.Title != "This memory is wrong: “Retry cap”" || wrong.Kind != "quickfix" {
		t.Fatalf("code actions = %+v", acts)
	}
	var flagged memory.View
	args := wrong.Command.Arguments[0].(map[string]any)
	args["reason"] = "the cap is 3, not n"
	if err := c.command("gloss.flag", args, &flagged); err != nil || !flagged.NeedsReview || flagged.ID != v.ID {
		t.Fatalf("flag = %+v, %v", flagged, err)
	}
	h := c.hover("main.go", Position{Line: line, Character: 3})
	if h == nil || !strings.Contains(h.Contents.Value, "⚑ flagged as wrong — needs review: the cap is 3, not n") {
		t.Fatalf("hover after flag:\n%v", h)
	}
	if err := c.command("gloss.flag", map[string]any{"id": "nope"}, nil); err == nil {
		t.Error("flag of an unknown id: no error")
	}
}
