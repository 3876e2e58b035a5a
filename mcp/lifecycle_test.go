package mcp_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	glossmcp "github.com/gloss-dev/gloss/mcp"
)

// review lists a memory whose code changed as stale, with the action to
// take and its confidence lowered (half, times the agent source's trust).
func TestReviewTool(t *testing.T) {
	f := newFixture(t)
	var res api.ReviewResult
	f.mustOK("review", map[string]any{}, &res)
	if len(res.Items) != 0 {
		t.Fatalf("review of a fresh workspace: %+v", res.Items)
	}
	var rem glossmcp.MemoryOutput
	f.mustOK("remember", map[string]any{"text": "Handle is the only entry point", "symbol": "Server.Handle", "type": "decision"}, &rem)
	testutil.WriteFiles(t, f.root, map[string]string{"service.go": strings.Replace(serviceGo, "func (s *Server) Handle(url string) string {", "func (s *Server) Handle(url string, n int) string {", 1)})
	var ck glossmcp.CheckOutput
	f.mustOK("check", map[string]any{}, &ck)
	f.mustOK("review", map[string]any{"limit": 5}, &res)
	if len(res.Items) != 1 || res.Items[0].ID != rem.Memory.ID || res.Items[0].Reason != "stale" || res.Items[0].Action != "update" || res.Items[0].Confidence != 0.45 { // 0.5 stale × 0.9 agent
		t.Fatalf("review after a signature change: %+v", res.Items)
	}
}
