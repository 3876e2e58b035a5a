package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestVerifyUsesTheBuffer: "Still valid — re-verify" on an unsaved edit
// verifies the buffer the user sees: the warning goes at once, and saving
// the buffer (the disk now has the verified code) keeps it gone.
func TestVerifyUsesTheBuffer(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	c.open("main.go", mainGo)
	uri := c.uri("main.go")
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })
	l := testutil.LineOf(t, mainGo, `"é𝄞", 3`) - 1
	col := utf16Col(t, mainGo, l, "3")
	c.change("main.go", Range{Start: Position{Line: l, Character: col}, End: Position{Line: l, Character: col + 1}}, "5")
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 1 })

	var verified memory.View
	if err := c.command("gloss.verify", map[string]any{"id": v.ID}, &verified); err != nil {
		t.Fatal(err)
	}
	if verified.Stale {
		t.Fatalf("verified memory is stale: %+v", verified)
	}
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })

	// Save: the disk now has the buffer's text; a check keeps it fresh.
	edited := strings.Replace(mainGo, `"é𝄞", 3`, `"é𝄞", 5`, 1)
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
	var st struct {
		Stale int `json:"stale"`
	}
	if err := c.command("gloss.check", map[string]any{}, &st); err != nil {
		t.Fatal(err)
	}
	var got api.ShowResult
	if err := c.command("gloss.show", map[string]any{"id": v.ID}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Stale || st.Stale != 0 {
		t.Fatalf("after saving the verified buffer the memory is stale: %+v (check: %d stale)", got.Anchors, st.Stale)
	}
}
