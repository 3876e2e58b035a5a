package lsp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

const mainGo = `package main

// greeting has non-ASCII text before the anchored code: é𝄞.
var greeting = "héllo 𝄞"

// Retry calls f until it succeeds, at most n times.
func Retry(f func() error) error {
	var err error
	_, n := "é𝄞", 3
	for i := 0; i < n; i++ {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

func main() {}
`

// utf16Col returns the UTF-16 column of the first occurrence of sub in
// line 0-based l of s.
func utf16Col(t *testing.T, s string, l int, sub string) int {
	t.Helper()
	line := strings.Split(s, "\n")[l]
	i := strings.Index(line, sub)
	if i < 0 {
		t.Fatalf("%q not in line %d", sub, l)
	}
	return len(utf16.Encode([]rune(line[:i])))
}

func rememberRetry(t *testing.T, c *client) memory.View {
	t.Helper()
	first, last := testutil.DefLines(t, mainGo, "func Retry")
	return c.remember("main.go", first, last, "Retry cap", "Retries are capped at n because upstream rate-limits bursts.")
}

func TestHoverAndCodeLens(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	if v.Anchors[0].Kind != memory.KindSymbol {
		t.Fatalf("anchor kind %q, want symbol", v.Anchors[0].Kind)
	}
	line := testutil.LineOf(t, mainGo, "for i := 0") - 1
	h := c.hover("main.go", Position{Line: line, Character: 3})
	if h == nil {
		t.Fatal("hover = null, want the memory")
	}
	for _, want := range []string{"**gloss · gotcha** — **Retry cap**", "Retries are capped at n", "Test Author · 2026-11-20 · ✓ fresh"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover missing %q:\n%s", want, h.Contents.Value)
		}
	}
	if h.Contents.Kind != "markdown" {
		t.Errorf("hover kind %q", h.Contents.Kind)
	}
	if h := c.hover("main.go", Position{Line: testutil.LineOf(t, mainGo, "func main") - 1}); h != nil {
		t.Errorf("hover on main = %+v, want null", h)
	}
	ls := c.lenses("main.go")
	if len(ls) != 1 || ls[0].Command == nil || ls[0].Command.Title != "1 memory" || ls[0].Command.Command != "gloss.showMemories" {
		t.Fatalf("lenses = %+v, want one \"1 memory\"", ls)
	}
	if ls[0].Range.Start.Line != testutil.LineOf(t, mainGo, "func Retry")-1 {
		t.Errorf("lens on line %d", ls[0].Range.Start.Line)
	}
	// The lens command's argument gives the same memories as memoriesAt.
	var res api.MemoriesResult
	if err := c.command("gloss.showMemories", ls[0].Command.Arguments[0], &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Memories) != 1 || res.Memories[0].ID != v.ID {
		t.Fatalf("showMemories = %+v", res)
	}
	c.waitEvent("workspace/codeLens/refresh")
}

func TestEditMakesStaleAndQuickFixes(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	c.open("main.go", mainGo)
	uri := c.uri("main.go")
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })

	// Replace the 3 after "é𝄞" (UTF-16 columns) with 5.
	l := testutil.LineOf(t, mainGo, `"é𝄞", 3`) - 1
	col := utf16Col(t, mainGo, l, "3")
	c.change("main.go", Range{Start: Position{Line: l, Character: col}, End: Position{Line: l, Character: col + 1}}, "5")
	ds := c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) > 0 })
	d := ds[0]
	if d.Source != "gloss" || d.Code != CodeStale || d.Severity != 2 {
		t.Fatalf("diagnostic = %+v", d)
	}
	var data struct {
		MemoryID string `json:"memoryId"`
	}
	if err := json.Unmarshal(d.Data, &data); err != nil || data.MemoryID != v.ID {
		t.Fatalf("data = %s, want memoryId %s", d.Data, v.ID)
	}
	if want := "Memory “Retry cap” (2026-11-20) describes code that changed since"; d.Message != want {
		t.Errorf("message %q, want %q", d.Message, want)
	}
	if d.Range.Start.Line != testutil.LineOf(t, mainGo, "func Retry")-1 {
		t.Errorf("diagnostic on line %d", d.Range.Start.Line)
	}
	// The edit landed exactly on the 3 (UTF-16 columns were honoured).
	h := c.hover("main.go", Position{Line: l, Character: 1})
	if h == nil || !strings.Contains(h.Contents.Value, "-\t_, n := \"é𝄞\", 3\n+\t_, n := \"é𝄞\", 5") {
		t.Fatalf("hover of a stale memory lacks the diff:\n%v", h)
	}

	var acts []CodeAction
	sel := Range{Start: Position{Line: l, Character: 0}, End: Position{Line: l + 1, Character: 0}}
	c.call("textDocument/codeAction", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}, "range": sel,
		"context": map[string]any{"diagnostics": []Diagnostic{d}}}, &acts)
	var titles []string
	for _, a := range acts {
		titles = append(titles, a.Kind+":"+a.Title+"→"+a.Command.Command)
	}
	want := []string{
		"quickfix:Still valid — re-verify→gloss.verify", "quickfix:Edit memory→gloss.show", "quickfix:Show what changed→gloss.show",
		"quickfix:Forget memory→gloss.forget", "quickfix:Re-anchor to selection→gloss.update", "quickfix:This memory is wrong→gloss.flag",
		"refactor:Remember this selection→gloss.remember",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Fatalf("code actions:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}

	// Without diagnostic data (clients without dataSupport) the memory is
	// found by the diagnostic's place and message.
	nodata := d
	nodata.Data = nil
	var acts2 []CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}, "range": sel,
		"context": map[string]any{"diagnostics": []Diagnostic{nodata}}}, &acts2)
	if len(acts2) != 7 || acts2[3].Command.Arguments[0].(map[string]any)["id"] != v.ID {
		t.Fatalf("code actions without data: %+v", acts2)
	}

	// Show what changed.
	var show api.ShowResult
	if err := c.command("gloss.show", acts[2].Command.Arguments[0], &show); err != nil {
		t.Fatal(err)
	}
	if !show.Stale || !strings.Contains(show.Diff, "+\t_, n := \"é𝄞\", 5") {
		t.Errorf("show = stale %v diff %q", show.Stale, show.Diff)
	}

	// Save, then "Still valid — re-verify": the diagnostic goes away.
	edited := strings.Replace(mainGo, `"é𝄞", 3`, `"é𝄞", 5`, 1)
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
	var verified memory.View
	if err := c.command("gloss.verify", acts[0].Command.Arguments[0], &verified); err != nil {
		t.Fatal(err)
	}
	if verified.Stale {
		t.Errorf("verified memory is stale: %+v", verified)
	}
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })
	if ls := c.lenses("main.go"); len(ls) != 1 || ls[0].Command.Title != "1 memory" {
		t.Errorf("lenses after verify = %+v", ls)
	}
}

func TestReanchorAndForget(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	l := testutil.LineOf(t, mainGo, "func main") - 1
	var up memory.View
	if err := c.command("gloss.update", map[string]any{"id": v.ID, "uri": c.uri("main.go"),
		"range": Range{Start: Position{Line: l}, End: Position{Line: l, Character: 5}}, "title": "Main", "tags": []string{"x"}}, &up); err != nil {
		t.Fatal(err)
	}
	if up.Title != "Main" || up.Anchors[0].StartLine != l+1 || len(up.Tags) != 1 {
		t.Fatalf("updated = %+v", up)
	}
	if ls := c.lenses("main.go"); len(ls) != 1 || ls[0].Range.Start.Line != l {
		t.Fatalf("lens after re-anchor = %+v", ls)
	}
	var fg map[string]string
	if err := c.command("gloss.forget", map[string]any{"id": v.ID}, &fg); err != nil || fg["forgotten"] != v.ID {
		t.Fatalf("forget = %v, %v", fg, err)
	}
	if ls := c.lenses("main.go"); len(ls) != 0 {
		t.Fatalf("lens after forget = %+v", ls)
	}
}

func TestGitCheckoutSeenThroughWatchedFiles(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	testutil.Git(t, root, "checkout", "-q", "-b", "change")
	testutil.WriteFiles(t, root, map[string]string{"main.go": strings.Replace(mainGo, "return err\n}", "return nil\n}", 1)})
	testutil.Commit(t, root, "change Retry")
	testutil.Git(t, root, "checkout", "-q", "main")

	c := start(t, root, clientOpts{})
	c.waitEvent("client/registerCapability")
	v := rememberRetry(t, c)
	uri := c.uri("main.go")
	event := map[string]any{"changes": []fileEvent{{URI: uri, Type: 2}}}

	testutil.Git(t, root, "checkout", "-q", "change")
	c.notify("workspace/didChangeWatchedFiles", event)
	ds := c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 1 })
	if ds[0].Code != CodeStale || !strings.Contains(string(ds[0].Data), v.ID) {
		t.Fatalf("after checkout: %+v", ds)
	}

	testutil.Git(t, root, "checkout", "-q", "main")
	c.notify("workspace/didChangeWatchedFiles", event)
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })
}

func TestMalformedCommandArguments(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	v := rememberRetry(t, c)
	outside := pathToURI(filepath.Join(t.TempDir(), "x.go"))
	if err := os.WriteFile(filepath.Join(strings.TrimPrefix(outside, "file://")), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := c.uri("main.go")
	r := func(sl, sc, el, ec int) Range {
		return Range{Start: Position{Line: sl, Character: sc}, End: Position{Line: el, Character: ec}}
	}
	for _, tc := range []struct {
		name, cmd string
		arg       any
		want      string
	}{
		{"outside workspace", "gloss.remember", map[string]any{"uri": outside, "range": r(0, 0, 0, 3), "text": "x"}, "outside the workspace"},
		{"end before start", "gloss.remember", map[string]any{"uri": uri, "range": r(5, 0, 2, 0), "text": "x"}, "malformed range"},
		{"negative", "gloss.memoriesAt", map[string]any{"uri": uri, "range": r(-1, 0, 2, 0)}, "malformed range"},
		{"past end", "gloss.remember", map[string]any{"uri": uri, "range": r(500, 0, 501, 0), "text": "x"}, "out of bounds"},
		{"missing range", "gloss.remember", map[string]any{"uri": uri, "text": "x"}, `missing "range"`},
		{"not an object", "gloss.remember", []int{1}, "must be a JSON object"},
		{"wrong type", "gloss.remember", map[string]any{"uri": uri, "range": "1-2", "text": "x"}, "bad argument"},
		{"no argument", "gloss.show", nil, "needs one argument"},
		{"unknown id", "gloss.forget", map[string]any{"id": "01NOPE"}, "no memory"},
		{"bad type", "gloss.update", map[string]any{"id": v.ID, "type": "rumour"}, "unknown memory type"},
		{"secret", "gloss.update", map[string]any{"id": v.ID, "text": "password: correct-horse-battery"}, "password"},
		{"unknown command", "gloss.explode", map[string]any{}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.command(tc.cmd, tc.arg, nil)
			var je *jsonrpc2.Error
			if !errors.As(err, &je) || je.Code != jsonrpc2.InvalidParams {
				t.Fatalf("error = %v (%T), want InvalidParams", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	var list api.MemoriesResult
	if err := c.command("gloss.list", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Memories) != 1 || list.Memories[0].Title != "Retry cap" || list.Memories[0].Type != "gotcha" ||
		!strings.HasPrefix(list.Memories[0].Body, "Retries are capped") {
		t.Fatalf("store changed: %+v", list.Memories)
	}
}

func TestUTF8PositionEncoding(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{utf8: true})
	rememberRetry(t, c)
	c.open("main.go", mainGo)
	uri := c.uri("main.go")
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 0 })
	l := testutil.LineOf(t, mainGo, `"é𝄞", 3`) - 1
	col := strings.Index(strings.Split(mainGo, "\n")[l], "3") // bytes
	c.change("main.go", Range{Start: Position{Line: l, Character: col}, End: Position{Line: l, Character: col + 1}}, "7")
	c.waitDiags(uri, func(ds []Diagnostic) bool { return len(ds) == 1 })
	h := c.hover("main.go", Position{Line: l, Character: 0})
	if h == nil || !strings.Contains(h.Contents.Value, "+\t_, n := \"é𝄞\", 7") {
		t.Fatalf("hover = %v", h)
	}
}

func TestRememberDraftAndStatus(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	l := testutil.LineOf(t, mainGo, "for i := 0") - 1
	var v memory.View
	if err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "range": Range{Start: Position{Line: l}, End: Position{Line: l, Character: 4}}}, &v); err != nil {
		t.Fatal(err)
	}
	if v.Title != memory.DraftText || v.Body != memory.DraftText || v.Anchors[0].Kind != memory.KindSpan || v.Anchors[0].StartLine != l+1 {
		t.Fatalf("draft = %+v", v)
	}
	// A draft without a scope is a project memory: its Markdown file exists
	// and is opened for the user to write.
	if v.Scope != memory.ScopeProject {
		t.Errorf("draft scope = %s, want project", v.Scope)
	}
	c.waitFor("draft showDocument", func() bool { return len(c.shown) == 1 && strings.HasSuffix(c.shown[0], v.ID+".md") })
	var st api.StatusResult
	if err := c.command("gloss.status", map[string]any{}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Memories != 1 || st.Stale != 0 || st.Files != 1 || st.Symbols < 3 || len(st.Workspaces) != 1 {
		t.Fatalf("status = %v", st)
	}
	var found api.MemoriesResult
	if err := c.command("gloss.search", map[string]any{"query": "describe"}, &found); err != nil || len(found.Memories) != 1 {
		t.Fatalf("search = %+v, %v", found, err)
	}
	var syms []SymbolInformation
	c.call("workspace/symbol", workspaceSymbolParams{Query: "describe"}, &syms)
	if len(syms) != 1 || syms[0].Name != memory.DraftText || syms[0].Location.URI != c.uri("main.go") {
		t.Fatalf("workspace/symbol = %+v", syms)
	}
}

func TestProjectMemoryFiles(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{})
	first, last := testutil.DefLines(t, mainGo, "func Retry")
	var v memory.View
	if err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "scope": "project", "tags": []string{"net"},
		"range": Range{Start: Position{Line: first - 1}, End: Position{Line: last}}, "title": "Retry cap", "text": "Capped at n."}, &v); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, ".gloss", "memories", v.ID+".md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"---\nid: " + v.ID + "\ntype: note\ntitle: Retry cap\ntags:\n  - net\nanchors:\n  - path: main.go\n    symbol: ", "    lines: 7-16\n", "author: Test Author\ncreated_at: 2026-11-20T09:30:00Z\n", "---\n\nCapped at n.\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("memory file lacks %q:\n%s", want, data)
		}
	}
	// Edit the file and save it: the memory follows.
	edited := strings.Replace(strings.Replace(string(data), "title: Retry cap", "title: Retry limit", 1), "Capped at n.", "Capped at n; see RFC 42.", 1)
	edited = strings.Replace(edited, "type: note", "type: decision", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: pathToURI(file)}})
	var show api.ShowResult
	if err := c.command("gloss.show", map[string]any{"id": v.ID, "edit": true}, &show); err != nil {
		t.Fatal(err)
	}
	if show.Title != "Retry limit" || show.Body != "Capped at n; see RFC 42." || show.Type != "decision" || show.File != file {
		t.Fatalf("after editing the file: %+v", show)
	}
	c.waitFor("showDocument", func() bool { return len(c.shown) == 1 && c.shown[0] == pathToURI(file) })

	// Delete the file: the memory is forgotten.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []fileEvent{{URI: pathToURI(file), Type: 3}}})
	var list api.MemoriesResult
	if err := c.command("gloss.list", nil, &list); err != nil || len(list.Memories) != 0 {
		t.Fatalf("after deleting the file: %+v %v", list, err)
	}

	// A project draft opens its new file.
	if err := c.command("gloss.remember", map[string]any{"uri": c.uri("main.go"), "scope": "project", "range": Range{Start: Position{Line: 2}, End: Position{Line: 2, Character: 3}}}, &v); err != nil {
		t.Fatal(err)
	}
	c.waitFor("draft showDocument", func() bool { return len(c.shown) == 2 && strings.HasSuffix(c.shown[1], v.ID+".md") })
	// Personal memories have no file.
	personal := rememberRetry(t, c)
	if _, err := os.Stat(filepath.Join(root, ".gloss", "memories", personal.ID+".md")); !os.IsNotExist(err) {
		t.Errorf("personal memory has a file: %v", err)
	}
}

func TestWorkspaceFolders(t *testing.T) {
	a := repo(t, map[string]string{"main.go": mainGo})
	b := testutil.InitRepo(t)
	testutil.WriteFiles(t, b, map[string]string{"lib/lib.py": "def helper(x):\n    return x + 1\n"})
	testutil.Commit(t, b, "init")
	c := start(t, a, clientOpts{folders: []string{a, b}})
	rememberRetry(t, c)
	libURI := pathToURI(filepath.Join(b, "lib", "lib.py"))
	var v memory.View
	if err := c.command("gloss.remember", map[string]any{"uri": libURI, "range": Range{Start: Position{Line: 0}, End: Position{Line: 2}}, "text": "Adds one."}, &v); err != nil {
		t.Fatal(err)
	}
	if v.Anchors[0].Path != "lib/lib.py" || v.Anchors[0].Kind != memory.KindSymbol {
		t.Fatalf("anchor in the second folder: %+v", v.Anchors)
	}
	var h *Hover
	c.call("textDocument/hover", textDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: libURI}, Position: Position{Line: 1, Character: 4}}, &h)
	if h == nil || !strings.Contains(h.Contents.Value, "Adds one.") {
		t.Fatalf("hover in the second folder = %v", h)
	}
	var st api.StatusResult
	if err := c.command("gloss.status", nil, &st); err != nil || st.Memories != 2 || st.Files != 2 || len(st.Workspaces) != 2 {
		t.Fatalf("status = %v, %v", st, err)
	}
	// Each folder has its own store: the first one only knows its memory.
	var list api.MemoriesResult
	if err := c.command("gloss.list", nil, &list); err != nil || len(list.Memories) != 2 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	for _, m := range list.Memories {
		if m.Anchors[0].Path != "main.go" && m.Anchors[0].Path != "lib/lib.py" {
			t.Errorf("unexpected anchor %+v", m.Anchors[0])
		}
	}
}

func TestLifecycleErrors(t *testing.T) {
	root := repo(t, map[string]string{"main.go": mainGo})
	c := start(t, root, clientOpts{noProgress: true})
	var je *jsonrpc2.Error
	if err := c.callErr("initialize", map[string]any{}, nil); !errors.As(err, &je) || je.Code != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: %v", err)
	}
	if err := c.callErr("textDocument/definition", map[string]any{}, nil); !errors.As(err, &je) || je.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
	if err := c.callErr("textDocument/hover", "not an object", nil); !errors.As(err, &je) || je.Code != jsonrpc2.InvalidParams {
		t.Errorf("bad hover params: %v", err)
	}
	// A cancel for an unknown request and a notification for an unopened
	// document are ignored; the server keeps working.
	c.notify("$/cancelRequest", map[string]any{"id": 12345})
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": c.uri("nope.go"), "version": 2}, "contentChanges": []any{}})
	if h := c.hover("main.go", Position{Line: 0}); h != nil {
		t.Errorf("hover = %v", h)
	}
	c.call("shutdown", nil, nil)
	if err := c.callErr("textDocument/hover", textDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: c.uri("main.go")}}, nil); !errors.As(err, &je) || je.Code != jsonrpc2.InvalidRequest {
		t.Errorf("request after shutdown: %v", err)
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	testutil.Hermetic(t)
	sc, cc := pipe()
	srv := NewServer(Options{Log: testWriter{t}})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(t.Context(), sc) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(cc), jsonrpc2.WithCodec(lspconn.Codec{}))
	conn.Go(t.Context(), jsonrpc2.MethodNotFoundHandler)
	_, err := conn.Call(t.Context(), "textDocument/hover", map[string]any{}, nil)
	var je *jsonrpc2.Error
	if !errors.As(err, &je) || je.Code != jsonrpc2.ServerNotInitialized {
		t.Errorf("hover before initialize: %v", err)
	}
	_ = conn.Notify(t.Context(), "exit", nil)
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	_ = conn.Close()
}
