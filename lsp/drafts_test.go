package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// TestDraftsNeverEmpty: a draft whose file is closed untouched is
// discarded (its file removed, restorable); one the user wrote in is
// kept; a client that cannot open documents gets an error, not a draft.
func TestDraftsNeverEmpty(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	l := testutil.LineOf(t, mainGo, "for i := 0") - 1
	draft := func() (memory.View, string) {
		t.Helper()
		var v memory.View
		if err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "range": Range{Start: Position{Line: l}, End: Position{Line: l, Character: 4}}}, &v); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, ".gloss", "memories", v.ID+".md")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return v, string(src)
	}
	closeFile := func(path, text string) {
		rel, _ := filepath.Rel(root, path)
		c.open(rel, text)
		c.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: c.uri(rel)}})
	}
	status := func() int {
		var st api.StatusResult
		if err := c.command("gloss.status", map[string]any{}, &st); err != nil {
			t.Fatal(err)
		}
		return st.Memories
	}

	// Untouched: discarded on close.
	v, src := draft()
	path := filepath.Join(root, ".gloss", "memories", v.ID+".md")
	closeFile(path, src)
	c.waitFor("the discard message", func() bool {
		return len(c.msgs) > 0 && strings.Contains(c.msgs[len(c.msgs)-1], "discarded the empty draft "+v.ID)
	})
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the empty draft's file is still there: %v", err)
	}
	if n := status(); n != 0 {
		t.Fatalf("%d memories after discarding the draft", n)
	}

	// Written and saved: kept.
	v, src = draft()
	path = filepath.Join(root, ".gloss", "memories", v.ID+".md")
	written := strings.Replace(src, "\n"+memory.DraftText+"\n", "\nThe loop stops at n.\n", 1)
	if written == src {
		t.Fatalf("no draft text in the file:\n%s", src)
	}
	if err := os.WriteFile(path, []byte(written), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: pathToURI(path)}})
	closeFile(path, written)
	var sh api.ShowResult
	if err := c.command("gloss.show", map[string]any{"id": v.ID}, &sh); err != nil || !strings.Contains(sh.Body, "The loop stops at n.") {
		t.Fatalf("written draft = %+v, %v", sh.View, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the written draft's file: %v", err)
	}
}

// TestDraftRefusedWithoutShowDocument: eglot 1.9 and Neovim 0.7 (without
// the plugin's capability) cannot open a draft: remember without text is
// an error saying to pass the text, and nothing is created.
func TestDraftRefusedWithoutShowDocument(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{noShowDoc: true})
	err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "range": Range{Start: Position{Line: 5}, End: Position{Line: 5, Character: 4}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "pass \"text\"") {
		t.Fatalf("remember without text = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".gloss")); !os.IsNotExist(err) {
		t.Fatalf(".gloss was created: %v", err)
	}
	var v memory.View
	if err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "range": Range{Start: Position{Line: 5}, End: Position{Line: 5, Character: 4}}, "text": "A note."}, &v); err != nil {
		t.Fatal(err)
	}
}

// TestShowFallbacks: the quick fixes "Show what changed" and "Edit memory"
// in a client without showDocument (eglot, Neovim 0.7 without the
// plugin): the diff arrives as a message, "Edit memory" on a personal
// memory says how to edit it, and on a project memory names its file.
func TestShowFallbacks(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{noShowDoc: true})
	v := rememberRetry(t, c)
	c.open("main.go", mainGo)
	uri := c.uri("main.go")
	l := testutil.LineOf(t, mainGo, `"é𝄞", 3`) - 1
	col := utf16Col(t, mainGo, l, "3")
	c.change("main.go", Range{Start: Position{Line: l, Character: col}, End: Position{Line: l, Character: col + 1}}, "5")
	d := c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 1 })[0]
	var acts []CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}, "range": d.Range,
		"context": map[string]any{"diagnostics": []Diagnostic{d}, "only": []string{"quickfix"}}}, &acts)
	run := func(title string) string {
		t.Helper()
		for _, a := range acts {
			if a.Title == title {
				c.mu.Lock()
				n := len(c.msgs)
				c.mu.Unlock()
				if err := c.command(a.Command.Command, a.Command.Arguments[0], nil); err != nil {
					t.Fatal(err)
				}
				var msg string
				c.waitFor(title+" message", func() bool {
					if len(c.msgs) > n {
						msg = c.msgs[n]
					}
					return msg != ""
				})
				return msg
			}
		}
		t.Fatalf("no %q action in %+v", title, acts)
		return ""
	}
	if msg := run("Show what changed"); !strings.Contains(msg, "+\t_, n := \"é𝄞\", 5") {
		t.Errorf("diff message %q", msg)
	}
	if msg := run("Edit memory"); !strings.Contains(msg, "personal memory") {
		t.Errorf("edit message for a personal memory %q", msg)
	}
	if err := c.command("gloss.share", map[string]any{"id": v.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if msg := run("Edit memory"); !strings.Contains(msg, filepath.Join(".gloss", "memories", v.ID+".md")) {
		t.Errorf("edit message for a project memory %q", msg)
	}
}

// TestFolderRetried: a folder whose store another process held when the
// session started is opened again at the next request in it (instead of
// every request failing with "outside the workspace folders").
func TestFolderRetried(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	holder, err := memory.Open(root, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wait := index.LockWait
	index.LockWait = 0
	defer func() { index.LockWait = wait }()
	c := start(t, root, clientOpts{})
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	// A hover there (null: the folder is not open yet) starts the retry.
	c.hover("main.go", Position{})
	c.waitFor("the folder opened", func() bool {
		return len(c.msgs) > 0 && strings.Contains(c.msgs[len(c.msgs)-1], "opened the memory store")
	})
	rememberRetry(t, c)
}
