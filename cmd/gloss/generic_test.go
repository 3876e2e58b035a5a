package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
)

// A command with a verb but no hand-written CLI command gets a generated
// one: gloss.impact as `gloss impact SYMBOL --depth N`.
func TestGenericVerb(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	testutil.WriteFiles(t, repo, map[string]string{"go.mod": "module example.com/cli\n", "main.go": cliGo + `
func upload() int {
	return createFileUploads()
}
`})
	testutil.Commit(t, repo, "init")
	if _, _, err := run(t, repo, "", "remember", "uploads must stay idempotent", "--at", "main.go:19-21"); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, repo, "", "impact", "createFileUploads", "--depth", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res api.ImpactResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("impact printed %s: %v", out, err)
	}
	if len(res.Definitions) != 1 || res.Definitions[0].Name != "upload" || len(res.Memories) != 1 {
		t.Errorf("impact = %s", out)
	}
	if _, _, err := run(t, repo, "", "impact", "a", "--symbol", "b"); err == nil {
		t.Error("positional argument and flag for the same field: want an error")
	}
}

// TestGenericVerbFlagHelp: the flags of a verb made from an api argument
// struct say what they take (units, form) where the struct's help tags
// do; they said only `the "budget" argument of gloss.context`.
func TestGenericVerbFlagHelp(t *testing.T) {
	for verb, want := range map[string][]string{
		"context":             {"maximum tokens of the briefing", "relative to the workspace root", "its words are searched"},
		"memories-for-symbol": {"a SCIP symbol or a definition name"},
	} {
		out, _, err := run(t, t.TempDir(), "", verb, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s --help lacks %q:\n%s", verb, w, out)
			}
		}
		if strings.Contains(out, "argument of gloss.") {
			t.Errorf("%s --help still describes a flag by its argument name:\n%s", verb, out)
		}
	}
}
