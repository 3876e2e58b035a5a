package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/memory"
)

// TestDecide is the decision table of remember's duplicate policies.
func TestDecide(t *testing.T) {
	cands := []memory.Duplicate{{ID: "A", Similarity: 0.8, SameAnchor: true}, {ID: "B", Similarity: 0.5, SameAnchor: true}}
	bodies := map[string]string{"A": "Retries are capped at 3.", "B": "Retry cap: three."}
	for _, tc := range []struct {
		policy, body string
		cands        []memory.Duplicate
		want         string
		ids          []string
	}{
		{"", "new text", nil, memory.DecisionAdd, nil},
		{memory.OnDuplicateSupersede, "new text", nil, memory.DecisionAdd, nil},
		{"", "new text", cands, memory.DecisionAdd, []string{"A", "B"}},
		{memory.OnDuplicateAdd, "Retries are capped at 3.", cands, memory.DecisionAdd, []string{"A", "B"}},
		{memory.OnDuplicateUpdate, "Retries are capped at 3 attempts.", cands, memory.DecisionUpdate, []string{"A"}},
		{memory.OnDuplicateUpdate, "retries  are capped at 3.", cands, memory.DecisionNoop, []string{"A"}},
		{memory.OnDuplicateSupersede, "Retries: at most 3.", cands, memory.DecisionSupersede, []string{"A", "B"}},
		{memory.OnDuplicateSupersede, "Retry cap: three.", cands, memory.DecisionNoop, []string{"B"}},
		{memory.OnDuplicateNoop, "Retries: at most 3.", cands, memory.DecisionNoop, []string{"A", "B"}},
		{memory.OnDuplicateAsk, "Retries: at most 3.", cands, memory.DecisionNoop, []string{"A", "B"}},
	} {
		d := memory.Decide(tc.policy, tc.body, tc.cands, bodies)
		if d.Action != tc.want || !slices.Equal(d.Candidates, tc.ids) || d.Reason == "" {
			t.Errorf("Decide(%q, %q, %d candidates) = %+v, want %s %v", tc.policy, tc.body, len(tc.cands), d, tc.want, tc.ids)
		}
	}
}

// TestRememberOnDuplicate stores near-duplicates on one definition under
// each policy: nothing is dropped silently, the decision says what was
// done, and the store holds what it says.
func TestRememberOnDuplicate(t *testing.T) {
	ctx := context.Background()
	w, _ := indexedWorkspace(t, map[string]string{"svc.go": relGo})
	first := "Retries are capped at 3\nThe upstream rate-limits bursts, so retries are capped at 3 attempts."
	reword := "Retry cap is 3\nRetries are capped at three attempts because upstream rate-limits bursts."
	orig := rememberOn(t, w, "Retry", first, "")
	remember := func(text, policy, sym string) *memory.Memory {
		t.Helper()
		m, err := w.Remember(ctx, memory.RememberRequest{Text: text, Symbol: sym, OnDuplicate: policy})
		if err != nil {
			t.Fatal(err)
		}
		if m.Decision == nil {
			t.Fatalf("%s: no decision", policy)
		}
		return m
	}
	count := func() int {
		ms, err := w.List()
		if err != nil {
			t.Fatal(err)
		}
		return len(ms)
	}
	// Same text, policy noop: nothing stored, the original returned.
	if m := remember(first, memory.OnDuplicateNoop, "Retry"); m.Decision.Action != memory.DecisionNoop || m.ID != orig.ID || count() != 1 {
		t.Fatalf("noop: %+v, %d memories", m.Decision, count())
	}
	// A rewording on another definition is not a duplicate on the same anchor.
	if m := remember(reword, memory.OnDuplicateNoop, "Fetch"); m.Decision.Action != memory.DecisionAdd || count() != 2 {
		t.Fatalf("other anchor: %+v", m.Decision)
	}
	// ask: nothing stored, the candidate named.
	if m := remember(reword, memory.OnDuplicateAsk, "Retry"); m.Decision.Action != memory.DecisionNoop || m.Decision.Candidates[0] != orig.ID || count() != 2 {
		t.Fatalf("ask: %+v", m.Decision)
	}
	// update: merged into the original.
	m := remember(reword+"\nSee incident 42.", memory.OnDuplicateUpdate, "Retry")
	if m.Decision.Action != memory.DecisionUpdate || m.ID != orig.ID || count() != 2 || !strings.Contains(m.Body, "incident 42") {
		t.Fatalf("update: %+v %q", m.Decision, m.Body)
	}
	if got, _ := w.Get(orig.ID); !strings.Contains(got.Body, "incident 42") || !strings.Contains(got.Body, "rate-limits bursts, so") {
		t.Fatalf("merged body = %q", got.Body)
	}
	// supersede: a new memory that supersedes the original.
	m = remember("Retries capped at 3\nRetries are capped at 3 attempts: the upstream rate-limits bursts of requests.", memory.OnDuplicateSupersede, "Retry")
	if m.Decision.Action != memory.DecisionSupersede || m.ID == orig.ID || count() != 3 || !slices.Contains(m.Relations, memory.Relation{Kind: memory.RelSupersedes, ID: orig.ID}) {
		t.Fatalf("supersede: %+v %+v", m.Decision, m.Relations)
	}
	// The superseded original is no candidate any more.
	if m := remember("Retry cap\nRetries are capped at 3 attempts as the upstream rate-limits bursts.", memory.OnDuplicateAsk, "Retry"); m.Decision.Action != memory.DecisionNoop || slices.Contains(m.Decision.Candidates, orig.ID) {
		t.Fatalf("after supersede: %+v", m.Decision)
	}
	if _, err := w.Remember(ctx, memory.RememberRequest{Text: "x", Symbol: "Retry", OnDuplicate: "merge"}); err == nil || !strings.Contains(err.Error(), "on-duplicate") {
		t.Errorf("unknown policy: %v", err)
	}
}
