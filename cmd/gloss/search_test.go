package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLISearchAndPlacement runs search with --kind, --code-only, --file
// and --explain, remember without a place, and suggest-anchors.
func TestCLISearchAndPlacement(t *testing.T) {
	_, repo := cliRepo(t)
	if _, _, err := run(t, repo, "", "index"); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, repo, "", "remember", "Retry gives up after three failed attempts")
	if err != nil || !strings.Contains(out, "the one definition the text names") {
		t.Fatalf("remember without --at: %v\n%s", err, out)
	}
	out, _, err = run(t, repo, "", "remember", "Releases are cut on Mondays")
	if err != nil || !strings.Contains(out, "workspace-level") {
		t.Fatalf("remember without a mentioned definition: %v\n%s", err, out)
	}
	var res struct {
		Results []struct {
			Kind    string          `json:"kind"`
			ID      string          `json:"id"`
			Symbol  json.RawMessage `json:"symbol"`
			Explain json.RawMessage `json:"explain"`
		} `json:"results"`
	}
	out, _, err = run(t, repo, "", "search", "retry attempts", "--json", "--explain", "--file", "main.go")
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) < 2 {
		t.Fatalf("search: %v\n%s", err, out)
	}
	if r := res.Results[0]; r.Kind != "memory" || r.ID == "" || len(r.Explain) == 0 {
		t.Errorf("first result %+v, want the memory, explained", r)
	}
	out, _, err = run(t, repo, "", "search", "retry", "--code-only", "--json")
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) == 0 {
		t.Fatalf("search --code-only: %v\n%s", err, out)
	}
	for _, r := range res.Results {
		if r.Kind != "symbol" || len(r.Symbol) == 0 {
			t.Errorf("--code-only result %+v", r)
		}
	}
	out, _, err = run(t, repo, "", "search", "retry", "--explain")
	if err != nil || !strings.Contains(out, "rrf ") || !strings.Contains(out, "symbol  function Retry") || !strings.Contains(out, "fusion profile builtin: RRF k 20,") {
		t.Errorf("search --explain text: %v\n%s", err, out)
	}
	if _, _, err := run(t, repo, "", "search", "retry", "--memories-only", "--code-only"); err == nil {
		t.Errorf("--memories-only with --code-only: want an error")
	}
	out, _, err = run(t, repo, "", "suggest-anchors", "createFileUploads in main.go")
	if err != nil || !strings.Contains(out, `"name": "createFileUploads"`) || !strings.Contains(out, `"path": "main.go"`) {
		t.Errorf("suggest-anchors: %v\n%s", err, out)
	}
}
