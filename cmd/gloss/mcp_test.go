package main

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
)

func TestMCPVerbFlags(t *testing.T) {
	testutil.Hermetic(t)
	repo := testutil.InitRepo(t)
	out, errOut, err := run(t, repo, "", "mcp", "--print-config", "cursor")
	if err != nil || !strings.Contains(out, `"mcpServers"`) || !strings.Contains(errOut, ".cursor/mcp.json") {
		t.Fatalf("--print-config cursor: %v\n%s\n%s", err, out, errOut)
	}
	if _, _, err := run(t, repo, "", "mcp", "--print-config", "notepad"); err == nil {
		t.Error("--print-config notepad: no error")
	}
	_, _, err = run(t, repo, "", "mcp", "--http", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Errorf("--http 0.0.0.0:0: %v", err)
	}
}
