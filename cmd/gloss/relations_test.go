package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// TestRelateWhyFlagVerbs drives relate, why, flag and --on-duplicate from
// the command line.
func TestRelateWhyFlagVerbs(t *testing.T) {
	_, repo := cliRepo(t)
	remember := func(args ...string) memory.View {
		t.Helper()
		out, _, err := run(t, repo, "", append([]string{"remember", "--json", "--symbol", "Retry"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var v memory.View
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("remember printed %s: %v", out, err)
		}
		return v
	}
	old := remember("Retries are capped at 3 because the upstream rate-limits bursts", "--type", "decision")
	nu := remember("Retries are capped at three attempts: the upstream rate-limits bursts", "--on-duplicate", "supersede")
	if nu.Decision == nil || nu.Decision.Action != memory.DecisionSupersede || len(nu.Relations) != 1 || nu.Relations[0].ID != old.ID {
		t.Fatalf("supersede: %+v %+v", nu.Decision, nu.Relations)
	}
	out, _, err := run(t, repo, "", "remember", "--symbol", "Retry", "--on-duplicate", "noop", "Retries are capped at three attempts: the upstream rate-limits bursts")
	if err != nil || !strings.Contains(out, "Not stored; already remembered as "+nu.ID) {
		t.Fatalf("noop: %q, %v", out, err)
	}
	out, _, err = run(t, repo, "", "relate", nu.ID, "supersedes", old.ID, "--remove")
	if err != nil || !strings.Contains(out, "no longer supersedes "+old.ID) {
		t.Fatalf("relate --remove: %q, %v", out, err)
	}
	if _, _, err := run(t, repo, "", "relate", old.ID, "supersedes", old.ID); err == nil || !strings.Contains(err.Error(), "itself") {
		t.Fatalf("self relation: %v", err)
	}
	if _, _, err := run(t, repo, "", "relate", nu.ID, "validates", old.ID); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, repo, "", "why", "Retry")
	if err != nil || !strings.Contains(out, "# Why `Retry`") || !strings.Contains(out, "validates: Retries are capped at 3") {
		t.Fatalf("why: %q, %v", out, err)
	}
	out, _, err = run(t, repo, "", "why", "Retry", "--mermaid")
	if err != nil || !strings.HasPrefix(out, "flowchart TD\n") || !strings.Contains(out, "-.->|validates|") {
		t.Fatalf("why --mermaid: %q, %v", out, err)
	}
	out, _, err = run(t, repo, "", "flag", old.ID, "--reason", "the cap is 5 now")
	if err != nil || !strings.Contains(out, `"needs_review": true`) {
		t.Fatalf("flag: %q, %v", out, err)
	}
	out, _, err = run(t, repo, "", "list")
	if err != nil || !strings.Contains(out, "⚑ needs review: the cap is 5 now") {
		t.Fatalf("list: %q, %v", out, err)
	}
}
