package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// fixedNow pins memory timestamps in tests.
var fixedNow = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// client is an in-process LSP client driving a real Server over net.Pipe.
type client struct {
	t         testing.TB
	srv       *Server
	root      string
	conn      jsonrpc2.Conn
	done      chan error
	mu        sync.Mutex
	cond      *sync.Cond
	diags     map[string][]Diagnostic // latest per URI
	nDiag     map[string]int          // publish count per URI
	dver      map[string]int          // version of the latest publish per URI
	events    []string                // methods of server-to-client messages, in order
	titles    []string                // titles of $/progress begin, in order
	progress  map[string][]string     // $/progress kinds by token, in order
	shown     []string                // window/showDocument URIs
	opened    map[string]int          // open document versions
	msgs      []string                // window/showMessage(Request) messages
	choose    string                  // the action to answer showMessageRequest with
	closeOnce sync.Once
}

type clientOpts struct {
	utf8       bool // offer utf-8 position encoding
	noProgress bool
	folders    []string       // workspaceFolders (default: rootUri only)
	noWatch    bool           // no workspace/didChangeWatchedFiles (Neovim 0.7)
	noShowDoc  bool           // no window/showDocument (eglot 1.9, Neovim 0.7 without the plugin's capability)
	noWait     bool           // do not wait for the first check's $/progress end
	initOpts   map[string]any // initializationOptions (default: none)
}

// start initializes a server on the git repository root and waits for its
// first check to finish.
func start(t testing.TB, root string, o clientOpts) *client {
	t.Helper()
	sc, cc := pipe()
	srv := NewServer(Options{Memory: memory.Options{Author: "Test Author", Now: func() time.Time { return fixedNow }}, Log: testWriter{t}})
	c := &client{t: t, srv: srv, root: root, done: make(chan error, 1), diags: map[string][]Diagnostic{}, nDiag: map[string]int{}, dver: map[string]int{}, opened: map[string]int{}}
	c.cond = sync.NewCond(&c.mu)
	go func() { c.done <- srv.Serve(context.Background(), sc) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(cc), jsonrpc2.WithCodec(lspconn.Codec{}))
	c.conn.Go(context.Background(), c.handle)
	caps := map[string]any{
		"workspace": map[string]any{
			"codeLens":              map[string]any{"refreshSupport": true},
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
		},
		"window": map[string]any{"workDoneProgress": !o.noProgress, "showDocument": map[string]any{"support": true}},
	}
	if o.noShowDoc {
		delete(caps["window"].(map[string]any), "showDocument")
	}
	if o.noWatch {
		delete(caps["workspace"].(map[string]any), "didChangeWatchedFiles")
	}
	if o.utf8 {
		caps["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	params := map[string]any{"processId": nil, "rootUri": pathToURI(root), "capabilities": caps}
	if o.initOpts != nil {
		params["initializationOptions"] = o.initOpts
	}
	if len(o.folders) > 0 {
		var wfs []WorkspaceFolder
		for _, f := range o.folders {
			wfs = append(wfs, WorkspaceFolder{URI: pathToURI(f), Name: filepath.Base(f)})
		}
		params["workspaceFolders"] = wfs
	}
	c.call("initialize", params, &res)
	want := encUTF16
	if o.utf8 {
		want = encUTF8
	}
	if res.Capabilities.PositionEncoding != want {
		t.Fatalf("positionEncoding = %q, want %q", res.Capabilities.PositionEncoding, want)
	}
	c.notify("initialized", map[string]any{})
	if !o.noProgress && !o.noWait {
		c.waitEvent("$/progress:end")
	}
	t.Cleanup(c.close)
	return c
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

func (c *client) close() { c.closeOnce.Do(c.doClose) }

func (c *client) doClose() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = c.conn.Call(ctx, "shutdown", nil, nil)
	_ = c.conn.Notify(ctx, "exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			c.t.Errorf("Serve: %v", err)
		}
	case <-ctx.Done():
		c.t.Errorf("server did not exit")
	}
	_ = c.conn.Close()
}

func (c *client) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.cond.Broadcast()
	ev := strings.Clone(req.Method())
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			c.t.Errorf("bad publishDiagnostics: %v", err)
		}
		c.diags[p.URI] = p.Diagnostics
		c.nDiag[p.URI]++
		if p.Version != nil {
			c.dver[p.URI] = *p.Version
		}
	case "$/progress":
		var p struct {
			Token any              `json:"token"`
			Value workDoneProgress `json:"value"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		ev += ":" + p.Value.Kind
		if p.Value.Kind == "begin" {
			c.titles = append(c.titles, p.Value.Title)
		}
		if c.progress == nil {
			c.progress = map[string][]string{}
		}
		tok := fmt.Sprint(p.Token)
		c.progress[tok] = append(c.progress[tok], p.Value.Kind)
	case "window/showDocument":
		var p showDocumentParams
		_ = json.Unmarshal(req.Params(), &p)
		c.shown = append(c.shown, p.URI)
	case "window/showMessage", "window/showMessageRequest":
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		c.msgs = append(c.msgs, p.Message)
		if req.Method() == "window/showMessageRequest" && c.choose != "" {
			c.events = append(c.events, ev)
			return map[string]string{"title": c.choose}, nil
		}
	}
	c.events = append(c.events, ev)
	return nil, nil
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.callErr(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) callErr(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// waitFor waits until cond (called with c.mu held) holds.
func (c *client) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	timer := time.AfterFunc(20*time.Second, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s (events %v)", what, c.events)
		}
		c.cond.Wait()
	}
}

func (c *client) waitEvent(ev string) {
	c.t.Helper()
	c.waitFor(ev, func() bool {
		for _, e := range c.events {
			if e == ev {
				return true
			}
		}
		return false
	})
}

// waitDiags waits until the latest diagnostics of uri satisfy pred.
func (c *client) waitDiags(uri string, pred func([]Diagnostic) bool) []Diagnostic {
	c.t.Helper()
	var out []Diagnostic
	c.waitFor("diagnostics of "+uri, func() bool {
		ds, ok := c.diags[uri]
		if ok && pred(ds) {
			out = ds
			return true
		}
		return false
	})
	return out
}

func (c *client) uri(rel string) string {
	return pathToURI(filepath.Join(c.root, filepath.FromSlash(rel)))
}

func (c *client) open(rel, content string) {
	c.t.Helper()
	c.mu.Lock()
	c.opened[rel] = 1
	c.mu.Unlock()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": TextDocumentItem{URI: c.uri(rel), LanguageID: "go", Version: 1, Text: content}})
}

// change sends one incremental change.
func (c *client) change(rel string, r Range, newText string) {
	c.t.Helper()
	c.mu.Lock()
	c.opened[rel]++
	v := c.opened[rel]
	c.mu.Unlock()
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(rel), "version": v},
		"contentChanges": []any{map[string]any{"range": r, "text": newText}},
	})
}

func (c *client) command(cmd string, arg any, result any) error {
	args := []any{}
	if arg != nil {
		args = append(args, arg)
	}
	return c.callErr("workspace/executeCommand", map[string]any{"command": cmd, "arguments": args}, result)
}

func (c *client) hover(rel string, pos Position) *Hover {
	c.t.Helper()
	var h *Hover
	c.call("textDocument/hover", textDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: c.uri(rel)}, Position: pos}, &h)
	return h
}

func (c *client) lenses(rel string) []CodeLens {
	c.t.Helper()
	var ls []CodeLens
	c.call("textDocument/codeLens", codeLensParams{TextDocument: TextDocumentIdentifier{URI: c.uri(rel)}}, &ls)
	return ls
}

// remember anchors a memory to 1-based lines first..last of rel.
func (c *client) remember(rel string, first, last int, title, text string) memory.View {
	c.t.Helper()
	var v memory.View
	if err := c.command("gloss.remember", map[string]any{
		"uri": c.uri(rel), "range": Range{Start: Position{Line: first - 1}, End: Position{Line: last, Character: 0}},
		"title": title, "text": text, "type": "gotcha",
	}, &v); err != nil {
		c.t.Fatalf("remember: %v", err)
	}
	if v.ID == "" {
		c.t.Fatalf("remember returned no id")
	}
	return v
}

// repo creates a committed hermetic git repository with files.
func repo(t testing.TB, files map[string]string) string {
	t.Helper()
	testutil.Hermetic(t)
	root := testutil.InitRepo(t)
	testutil.WriteFiles(t, root, files)
	testutil.Commit(t, root, "init")
	return root
}

// pipe returns two connected in-memory connections with unbounded
// buffering. (net.Pipe is synchronous: two peers writing to each other at
// once, as an LSP server and client do, would deadlock, which real stdio
// buffers prevent.)
func pipe() (io.ReadWriteCloser, io.ReadWriteCloser) {
	a, b := newBuf(), newBuf()
	return &duplex{r: a, w: b}, &duplex{r: b, w: a}
}

type buf struct {
	mu     sync.Mutex
	cond   *sync.Cond
	data   []byte
	closed bool
}

func newBuf() *buf {
	b := &buf{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

type duplex struct{ r, w *buf }

func (d *duplex) Read(p []byte) (int, error) {
	b := d.r
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.data) == 0 && !b.closed {
		b.cond.Wait()
	}
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (d *duplex) Write(p []byte) (int, error) {
	b := d.w
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	b.data = append(b.data, p...)
	b.cond.Broadcast()
	return len(p), nil
}

func (d *duplex) Close() error {
	for _, b := range []*buf{d.r, d.w} {
		b.mu.Lock()
		b.closed = true
		b.cond.Broadcast()
		b.mu.Unlock()
	}
	return nil
}
