package mcp

import (
	"fmt"
	"net"
	"sort"
	"strings"
)

// clientConfigs are the setup snippets of MCP clients, by client name:
// where the snippet goes and the snippet, with {{cmd}} for the gloss
// command and {{args}} for its arguments as a JSON array. docs/mcp.md
// shows the same snippets.
var clientConfigs = map[string]struct{ where, snippet string }{
	"claude": {"run in the repository (Claude Code; add --scope project to share it through .mcp.json)",
		"claude mcp add gloss -- {{cmdline}}\n"},
	"cursor": {".cursor/mcp.json in the repository (or ~/.cursor/mcp.json)",
		`{
  "mcpServers": {
    "gloss": {
      "command": "{{cmd}}",
      "args": {{args}}
    }
  }
}
`},
	"vscode": {".vscode/mcp.json in the repository (VS Code, agent mode)",
		`{
  "servers": {
    "gloss": {
      "type": "stdio",
      "command": "{{cmd}}",
      "args": {{vscodeargs}}
    }
  }
}
`},
	"zed": {"Zed settings.json (zed: open settings); Zed uses MCP tools and prompts",
		`{
  "context_servers": {
    "gloss": {
      "source": "custom",
      "command": "{{cmd}}",
      "args": {{args}},
      "env": {}
    }
  }
}
`},
	"codex": {"~/.codex/config.toml (or run: codex mcp add gloss -- {{cmdline}})",
		`[mcp_servers.gloss]
command = "{{cmd}}"
args = {{args}}
`},
}

// Clients returns the names ClientConfig knows, sorted.
func Clients() []string {
	out := make([]string, 0, len(clientConfigs))
	for name := range clientConfigs {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// ClientConfig returns the configuration snippet that makes client run
// `command mcp` (command is the gloss executable, "gloss" when on PATH),
// serving the workspace dir ("" for the client's working directory, the
// project it was opened on), and a line saying where it goes.
func ClientConfig(client, command, dir string) (where, snippet string, err error) {
	c, ok := clientConfigs[strings.ToLower(client)]
	if !ok {
		return "", "", fmt.Errorf("unknown MCP client %q (known: %s)", client, strings.Join(Clients(), ", "))
	}
	if command == "" {
		command = "gloss"
	}
	args := []string{"mcp"}
	if dir != "" {
		args = []string{"-C", dir, "mcp"}
	}
	// VS Code starts servers outside the workspace unless told: pass its
	// folder.
	vsargs := args
	if dir == "" {
		vsargs = []string{"-C", "${workspaceFolder}", "mcp"}
	}
	r := strings.NewReplacer(
		"{{cmdline}}", shellWords(append([]string{command}, args...)),
		"{{cmd}}", jsonString(command)[1:len(jsonString(command))-1],
		"{{args}}", jsonArray(args),
		"{{vscodeargs}}", jsonArray(vsargs),
	)
	return r.Replace(c.where), r.Replace(c.snippet), nil
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func jsonArray(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = jsonString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// shellWords quotes words for a POSIX shell when needed.
func shellWords(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

// CheckListenAddr refuses an HTTP listen address that is not a loopback
// address (127.0.0.0/8, ::1, localhost) unless allowRemote: the server
// has no authentication, and anyone who reaches it can read and change
// the workspace's memories. An empty host (":8080") listens on every
// interface and is refused too.
func CheckListenAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, such as 127.0.0.1:8765: %v", addr, err)
	}
	if allowRemote {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	what := host
	if host == "" {
		what = "every interface"
	}
	return fmt.Errorf("--http %s listens on %s, not a loopback address: the MCP server has no authentication; use 127.0.0.1:PORT, or pass --allow-remote if you really mean it", addr, what)
}
