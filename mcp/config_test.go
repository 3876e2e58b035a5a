package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	glossmcp "github.com/gloss-dev/gloss/mcp"
)

func TestClientConfig(t *testing.T) {
	for _, client := range glossmcp.Clients() {
		where, snippet, err := glossmcp.ClientConfig(client, "gloss", "")
		if err != nil || where == "" || !strings.Contains(snippet, "gloss") || !strings.Contains(snippet, "mcp") {
			t.Errorf("%s: %q %q %v", client, where, snippet, err)
		}
		if strings.HasPrefix(snippet, "{") {
			var v map[string]any
			if err := json.Unmarshal([]byte(snippet), &v); err != nil {
				t.Errorf("%s: snippet is not JSON: %v\n%s", client, err, snippet)
			}
		}
	}
	if _, s, _ := glossmcp.ClientConfig("claude", "gloss", ""); s != "claude mcp add gloss -- gloss mcp\n" {
		t.Errorf("claude = %q", s)
	}
	if _, s, _ := glossmcp.ClientConfig("vscode", "gloss", ""); !strings.Contains(s, `"args": ["-C", "${workspaceFolder}", "mcp"]`) {
		t.Errorf("vscode = %s", s)
	}
	if _, s, _ := glossmcp.ClientConfig("codex", "/opt/my gloss", "/src/repo"); !strings.Contains(s, `command = "/opt/my gloss"`) || !strings.Contains(s, `args = ["-C", "/src/repo", "mcp"]`) {
		t.Errorf("codex = %s", s)
	}
	if _, _, err := glossmcp.ClientConfig("emacs", "gloss", ""); err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("unknown client: %v", err)
	}
}

func TestCheckListenAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8765": true, "[::1]:8765": true, "localhost:0": true, "127.1.2.3:80": true,
		":8765": false, "0.0.0.0:8765": false, "192.168.1.10:8765": false, "example.com:80": false, "[::]:8765": false, "nope": false,
	} {
		err := glossmcp.CheckListenAddr(addr, false)
		if (err == nil) != ok {
			t.Errorf("CheckListenAddr(%q) = %v, want ok %v", addr, err, ok)
		}
	}
	if err := glossmcp.CheckListenAddr("0.0.0.0:8765", true); err != nil {
		t.Errorf("--allow-remote: %v", err)
	}
}
