package lsp

import (
	"strings"
	"testing"

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
	c.waitFor("the buffer's new function in search", func() bool { return found("signing keys") })
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": c.uri("main.go")}})
	c.waitFor("the stored definitions back in search", func() bool { return !found("signing keys") })
}
