package mcp_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	glossmcp "github.com/gloss-dev/gloss/mcp"
	"github.com/gloss-dev/gloss/memory"
)

// TestRelateWhyFlagTools: an agent merges a near-duplicate with
// on_duplicate, relates memories, asks why and flags one.
func TestRelateWhyFlagTools(t *testing.T) {
	f := newFixture(t)
	var a, b, dup glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "retry stops after three attempts because the upstream throttles", "symbol": "retry"}, &a)
	f.mustOK("remember", map[string]any{"text": "retry gives up after three attempts: the upstream throttles bursts", "symbol": "retry", "on_duplicate": "update"}, &dup)
	if d := dup.Memory.Decision; d == nil || d.Action != memory.DecisionUpdate || dup.Memory.ID != a.Memory.ID {
		t.Fatalf("on_duplicate update: %+v", dup.Memory)
	}
	f.mustOK("remember", map[string]any{"text": "Fetch is called by every handler", "symbol": "Fetch"}, &b)
	var rel api.RelateResult
	f.mustOK("relate", map[string]any{"id": b.Memory.ID, "relation": "required_with", "target": a.Memory.ID}, &rel)
	if len(rel.Memory.Relations) != 1 || rel.Target != a.Memory.ID {
		t.Fatalf("relate = %+v", rel)
	}
	if msg := f.mustFail("relate", map[string]any{"id": a.Memory.ID, "relation": "supersedes", "target": a.Memory.ID}); !strings.Contains(msg, "itself") {
		t.Errorf("self relation: %s", msg)
	}
	var why api.WhyResult
	f.mustOK("why", map[string]any{"symbol": "retry"}, &why)
	if len(why.Items) != 2 || !strings.Contains(why.Markdown, "required with:") || !strings.Contains(why.Mermaid, "-.->|required_with|") {
		t.Fatalf("why = %+v", why)
	}
	var flagged glossmcp.MemoryOutput
	f.mustOK("flag", map[string]any{"id": a.Memory.ID, "reason": "the loop allows 3 tries, not attempts after the first"}, &flagged)
	if !flagged.Memory.NeedsReview || flagged.Memory.ReviewReason == "" {
		t.Fatalf("flag = %+v", flagged.Memory)
	}
}
