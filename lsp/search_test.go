package lsp

import (
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
)

// TestSearchFollowsUnsavedBuffer checks that gloss.search finds the code
// symbols of an open document's unsaved text, and the stored ones again
// once the document is closed.
func TestSearchFollowsUnsavedBuffer(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	rememberRetry(t, c)
	c.open("main.go", mainGo)
	found := func(query string) bool {
		var res api.SearchResult
		if err := c.command("gloss.search", map[string]any{"query": query, "kind": "symbol"}, &res); err != nil {
			t.Fatal(err)
		}
		return len(res.Results) > 0 && res.Results[0].Symbol != nil && res.Results[0].Symbol.Name == "rotateSigningKeys"
	}
	last := strings.Count(mainGo, "\n")
	c.change("main.go", Range{Start: Position{Line: last}, End: Position{Line: last}}, "\n// rotateSigningKeys renews the keys.\nfunc rotateSigningKeys() {}\n")
	poll(t, "the buffer's new function in search", func() bool { return found("signing keys") })
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": c.uri("main.go")}})
	poll(t, "the stored definitions back in search", func() bool { return !found("signing keys") })
}

// poll calls cond until it holds, for up to 20 s (not under the client's
// lock, as waitFor would: cond sends requests whose replies may follow
// notifications the client must take that lock to record).
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
