package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestGitCheckoutSeenByOwnWatcher: a client without
// workspace/didChangeWatchedFiles (Neovim 0.7) gets the server's own
// watcher: a `git checkout` with the editor open flags the memory of a
// file that is not open, and checking out back clears it, with no
// notification from the client.
func TestGitCheckoutSeenByOwnWatcher(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo, "other.go": "package main\n\nfunc Other() {}\n"})
	testutil.Git(t, root, "checkout", "-q", "-b", "change")
	testutil.WriteFiles(t, root, map[string]string{"main.go": strings.Replace(mainGo, "return err\n}", "return nil\n}", 1)})
	testutil.Commit(t, root, "change Retry")
	testutil.Git(t, root, "checkout", "-q", "main")

	c := start(t, root, clientOpts{noWatch: true})
	v := rememberRetry(t, c)
	c.open("other.go", "package main\n\nfunc Other() {}\n")
	uri := c.uri("main.go")
	testutil.Git(t, root, "checkout", "-q", "change")
	ds := c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 1 })
	if ds[0].Code != CodeStale || !strings.Contains(string(ds[0].Data), v.ID) {
		t.Fatalf("after checkout: %+v", ds)
	}
	testutil.Git(t, root, "checkout", "-q", "main")
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ev := range c.events {
		if ev == "client/registerCapability" {
			t.Fatal("the server registered a watcher with a client that has none")
		}
	}
}

// TestNoOwnWatcherForOneCallClients: a client without
// workspace/didChangeWatchedFiles that sends {"watchFiles": false} (the
// CLI through the daemon, internal/lspconn) gets no watcher of the
// server's own, which would walk and watch every directory for one
// request; without the option it gets one (the control).
func TestNoOwnWatcherForOneCallClients(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	watcher := func(c *client) bool {
		c.srv.mu.Lock()
		defer c.srv.mu.Unlock()
		return c.srv.watcher != nil
	}
	ctl := start(t, root, clientOpts{noWatch: true})
	deadline := time.Now().Add(10 * time.Second)
	for !watcher(ctl) {
		if time.Now().After(deadline) {
			t.Fatal("control: no own watcher for a client without didChangeWatchedFiles")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := start(t, root, clientOpts{noWatch: true, initOpts: map[string]any{"initialCheck": false, "watchFiles": false}, noWait: true})
	var st api.StatusResult
	c.call("workspace/executeCommand", map[string]any{"command": "gloss.status", "arguments": []any{map[string]any{}}}, &st)
	time.Sleep(200 * time.Millisecond)
	if watcher(c) {
		t.Fatal("a client that sent watchFiles false got the server's own watcher")
	}
}

// TestEmptySymbolQueryAndBinaryFiles: an empty workspace/symbol query
// (what clients send to list everything) lists the memories; "Remember
// this selection" is not offered in a binary document, where it would
// always fail.
func TestEmptySymbolQueryAndBinaryFiles(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	var syms []SymbolInformation
	c.call("workspace/symbol", map[string]any{"query": ""}, &syms)
	if len(syms) != 1 || syms[0].Name != v.Title {
		t.Fatalf("empty query: %+v", syms)
	}
	sel := Range{Start: Position{Line: 0}, End: Position{Line: 1}}
	actions := func(rel string) int {
		var acts []CodeAction
		c.call("textDocument/codeAction", map[string]any{"textDocument": TextDocumentIdentifier{URI: c.uri(rel)}, "range": sel,
			"context": map[string]any{"diagnostics": []Diagnostic{}}}, &acts)
		return len(acts)
	}
	c.open("main.go", mainGo)
	if n := actions("main.go"); n != 1 {
		t.Fatalf("%d actions on a Go file, want remember", n)
	}
	c.open("blob.bin", "ab\x00cd\nef\n")
	if n := actions("blob.bin"); n != 0 {
		t.Fatalf("%d actions on a binary file, want none", n)
	}
}

// TestForgetUndo: forgetting a memory shows a message with an "Undo"
// action; choosing it restores the memory (its code lens comes back).
func TestForgetUndo(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	c.mu.Lock()
	c.choose = "Undo"
	c.mu.Unlock()
	v := rememberRetry(t, c)
	var fg api.ForgetResult
	if err := c.command("gloss.forget", map[string]any{"id": v.ID}, &fg); err != nil || fg.Forgotten != v.ID {
		t.Fatalf("forget = %+v, %v", fg, err)
	}
	c.waitFor("the restore message", func() bool {
		return len(c.msgs) > 0 && strings.HasPrefix(c.msgs[len(c.msgs)-1], "gloss: restored memory")
	})
	c.mu.Lock()
	first := c.msgs[0]
	c.mu.Unlock()
	if !strings.Contains(first, "forgot memory “Retry cap”") {
		t.Errorf("forget message %q", first)
	}
	if ls := c.lenses("main.go"); len(ls) != 1 {
		t.Fatalf("lenses after undo = %+v", ls)
	}
}
