// Package lsp is gloss's language server: it serves memories as hover,
// code lenses, diagnostics for stale anchors, code actions and
// workspace/executeCommand commands next to the user's own language server
// (see DESIGN.md, "LSP surface", and docs/commands.md).
//
// Concurrency: notifications that change documents are handled in order on
// the connection's read loop and only swap immutable document snapshots.
// Requests capture the snapshot they need on the read loop, so they see
// every change sent before them, and then run concurrently. Store-changing
// commands run on the read loop too, so a request sent after one sees its
// effect. Diagnostics and checks run in coalescing background workers.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/syncx"
	"github.com/gloss-dev/gloss/memory"
)

// Options configure a Server.
type Options struct {
	// Memory is passed to memory.Open for every workspace folder.
	Memory memory.Options
	// Log receives diagnostic messages; nil means os.Stderr.
	Log io.Writer
	// Version is reported in serverInfo.
	Version string
	// Workspaces, when set, are shared with other sessions of the process
	// (the daemon): the server opens its folders there and sees the other
	// sessions' changes. nil means a private set, closed when Serve
	// returns (gloss lsp --no-daemon).
	Workspaces *Workspaces
}

// Server is one language-server session over one connection.
type Server struct {
	opts Options
	log  *log.Logger
	conn jsonrpc2.Conn
	pool *Workspaces

	reqMu    sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelFunc

	mu      sync.Mutex
	state   int // stateNew, stateRunning, stateShutdown
	folders []*folder
	docs    map[string]*document // by URI
	enc     string
	caps    clientCapabilities
	// noInitialCheck: the client asked for no check after initialized.
	noInitialCheck bool
	published      map[string]bool // URIs with non-empty gloss diagnostics
	docRuns        map[string]*coalescer
	cache          map[string]*resolved // by URI
	flights        map[flightKey]*flight
	exited         chan struct{}
	exitOnce       sync.Once
	pubMu          sync.Mutex
	gen            atomic.Uint64 // bumped on every store change this server makes or sees
	bg             sync.WaitGroup
}

const (
	stateNew = iota
	stateRunning
	stateShutdown
)

// folder is one workspace root with its engine workspace.
type folder struct {
	root  string // memory.Workspace.Root: absolute, symlinks resolved
	w     *memory.Workspace
	check coalescer
	ready chan struct{} // closed after the first check
	once  sync.Once
}

// resolved caches the memories of one document snapshot.
type resolved struct {
	text *text
	gen  uint64
	mems []*memory.Memory
	defs []index.Definition
	err  error
}

// NewServer returns a server; call Serve to run it.
func NewServer(opts Options) *Server {
	out := opts.Log
	if out == nil {
		out = os.Stderr
	}
	pool := opts.Workspaces
	if pool == nil {
		pool = NewWorkspaces(opts.Memory)
	}
	return &Server{
		opts: opts, log: log.New(out, "gloss lsp: ", log.LstdFlags), pool: pool,
		docs: map[string]*document{}, enc: encUTF16, published: map[string]bool{},
		docRuns: map[string]*coalescer{}, cache: map[string]*resolved{}, exited: make(chan struct{}),
		inflight: map[jsonrpc2.ID]context.CancelFunc{}, flights: map[flightKey]*flight{},
	}
}

// stdCodec encodes payloads with encoding/json, whose omitempty and nil
// slice rules the LSP types here are written for.
type stdCodec struct{}

func (stdCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return json.Marshal(v)
}

func (stdCodec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *json.RawMessage:
		*p = append(json.RawMessage(nil), data...)
		return nil
	case *jsonrpc2.RawMessage:
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return json.Unmarshal(data, v)
}

// Serve runs the server on rwc (LSP Content-Length framing) until the
// client sends exit or closes the connection, then closes the workspaces.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	s.conn = jsonrpc2.NewConn(newTolerantStream(rwc), jsonrpc2.WithCodec(stdCodec{}))
	s.conn.Go(ctx, s.handle)
	var err error
	select {
	case <-s.conn.Done():
		err = s.conn.Err()
	case <-s.exited:
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	// Close waits for the read loop, which a blocking stdin read can hold
	// after exit: do not wait for it for long.
	closed := make(chan struct{})
	go func() {
		_ = s.conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Second):
	}
	// Other sessions stop sending changes here before background work is
	// waited for.
	for _, f := range s.allFolders() {
		s.pool.unsubscribe(s, f.root)
	}
	// Background work (checks, calls to the client) ends quickly once the
	// connection is closed; a client that never answers a call must not
	// keep the process alive, though.
	if !syncx.WaitTimeout(&s.bg, 5*time.Second) {
		s.log.Printf("exiting with background work still running")
		return err
	}
	s.mu.Lock()
	folders := s.folders
	s.folders = nil
	s.mu.Unlock()
	for _, f := range folders {
		if cerr := s.pool.release(f.root); cerr != nil {
			s.log.Printf("close %s: %v", f.root, cerr)
		}
	}
	if s.opts.Workspaces == nil {
		if cerr := s.pool.Close(); cerr != nil {
			s.log.Printf("%v", cerr)
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, jsonrpc2.ErrClientClosing) {
		err = nil
	}
	return err
}

// goBG runs fn in a tracked background goroutine.
func (s *Server) goBG(fn func()) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		fn()
	}()
}

func (s *Server) closing() bool {
	select {
	case <-s.exited:
		return true
	case <-s.conn.Done():
		return true
	default:
		return false
	}
}

// invalidParams builds a JSON-RPC InvalidParams error.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}

func decode(req *jsonrpc2.Request, v any) error {
	p := req.Params()
	if len(p) == 0 {
		return nil
	}
	if err := json.Unmarshal(p, v); err != nil {
		return invalidParams("%s: bad params: %v", req.Method(), err)
	}
	return nil
}

// handle dispatches one incoming message.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := req.Method()
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch method {
	case "initialize":
		if state != stateNew {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize sent twice")
		}
		return s.initialize(ctx, req)
	case "exit":
		s.exitOnce.Do(func() { close(s.exited) })
		return nil, nil
	case "$/cancelRequest":
		var p cancelParams
		if json.Unmarshal(req.Params(), &p) == nil {
			var n int64
			var str string
			var id jsonrpc2.ID
			if json.Unmarshal(p.ID, &n) == nil {
				id = jsonrpc2.NewNumberID(n)
			} else if json.Unmarshal(p.ID, &str) == nil {
				id = jsonrpc2.NewStringID(str)
			}
			s.reqMu.Lock()
			cancel := s.inflight[id]
			s.reqMu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
		return nil, nil
	}
	if state == stateNew {
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize", method)
		}
		return nil, nil
	}
	if state == stateShutdown && req.IsCall() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", method)
	}
	if !req.IsCall() {
		// A notification error would close the connection: log instead.
		if err := s.notification(ctx, req); err != nil {
			s.log.Printf("%s: %v", method, err)
		}
		return nil, nil
	}
	// The request context of jsonrpc2 is pooled and must not be the parent
	// of derived contexts (a cancel propagation goroutine would outlive
	// it): requests get their own cancellable context, cancelled by
	// $/cancelRequest, that still carries the request's Async token.
	id := req.ID()
	base, cancel := context.WithCancel(context.Background())
	s.reqMu.Lock()
	s.inflight[id] = cancel
	s.reqMu.Unlock()
	defer func() {
		s.reqMu.Lock()
		delete(s.inflight, id)
		s.reqMu.Unlock()
		cancel()
	}()
	ctx = reqCtx{Context: base, req: ctx}
	switch method {
	case "shutdown":
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		return nil, nil
	case "textDocument/hover":
		var p textDocumentPositionParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		snap := s.snapshot(p.TextDocument.URI)
		jsonrpc2.Async(ctx)
		h := s.hover(ctx, snap, p.Position)
		if h == nil {
			return nil, nil
		}
		return h, nil
	case "textDocument/codeLens":
		var p codeLensParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		snap := s.snapshot(p.TextDocument.URI)
		jsonrpc2.Async(ctx)
		return s.codeLens(ctx, snap), nil
	case "textDocument/codeAction":
		var p codeActionParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		snap := s.snapshot(p.TextDocument.URI)
		jsonrpc2.Async(ctx)
		return s.codeActions(ctx, snap, p), nil
	case "workspace/symbol":
		var p workspaceSymbolParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		jsonrpc2.Async(ctx)
		return s.workspaceSymbol(ctx, p.Query), nil
	case "workspace/executeCommand":
		var p executeCommandParams
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		return s.executeCommand(ctx, p)
	}
	return nil, fmt.Errorf("%q: %w", method, jsonrpc2.ErrMethodNotFound)
}

// notification handles document and workspace notifications in order.
func (s *Server) notification(ctx context.Context, req *jsonrpc2.Request) error {
	switch req.Method() {
	case "initialized":
		s.initialized()
	case "textDocument/didOpen":
		var p didOpenParams
		if err := decode(req, &p); err != nil {
			return err
		}
		path, err := uriToPath(p.TextDocument.URI)
		if err != nil {
			return err
		}
		d := &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: newText([]byte(p.TextDocument.Text))}
		s.mu.Lock()
		s.docs[d.uri] = d
		s.mu.Unlock()
		s.scheduleDoc(d.uri)
	case "textDocument/didChange":
		var p didChangeParams
		if err := decode(req, &p); err != nil {
			return err
		}
		s.mu.Lock()
		d := s.docs[p.TextDocument.URI]
		if d == nil {
			s.mu.Unlock()
			return fmt.Errorf("didChange for %s, which is not open", p.TextDocument.URI)
		}
		t := d.text
		var err error
		for _, c := range p.ContentChanges {
			nt, cerr := t.apply(c, s.enc)
			if cerr != nil {
				err = cerr
				break
			}
			t = nt
		}
		s.docs[d.uri] = &document{uri: d.uri, path: d.path, version: p.TextDocument.Version, text: t}
		s.mu.Unlock()
		s.scheduleDoc(d.uri)
		return err
	case "textDocument/didSave":
		var p didSaveParams
		if err := decode(req, &p); err != nil {
			return err
		}
		path, err := uriToPath(p.TextDocument.URI)
		if err != nil {
			return err
		}
		if p.Text != nil {
			s.mu.Lock()
			if d := s.docs[p.TextDocument.URI]; d != nil {
				s.docs[d.uri] = &document{uri: d.uri, path: d.path, version: d.version, text: newText([]byte(*p.Text))}
			}
			s.mu.Unlock()
		}
		if f := s.folderFor(path); f != nil {
			s.memoryFileChanged(f, path, false)
			s.scheduleCheck(f)
		}
	case "textDocument/didClose":
		var p didCloseParams
		if err := decode(req, &p); err != nil {
			return err
		}
		s.mu.Lock()
		d := s.docs[p.TextDocument.URI]
		delete(s.docs, p.TextDocument.URI)
		delete(s.cache, p.TextDocument.URI)
		s.mu.Unlock()
		if d != nil {
			if f := s.folderFor(d.path); f != nil {
				f.w.ForgetDocument(d.path)
				s.goBG(func() { s.publishStoredFile(f, d.path) })
			}
		}
	case "workspace/didChangeWatchedFiles":
		var p didChangeWatchedFilesParams
		if err := decode(req, &p); err != nil {
			return err
		}
		touched := map[*folder]bool{}
		for _, e := range p.Changes {
			path, err := uriToPath(e.URI)
			if err != nil {
				continue
			}
			if f := s.folderFor(path); f != nil {
				s.memoryFileChanged(f, path, e.Type == 3)
				touched[f] = true
			}
		}
		for f := range touched {
			s.scheduleCheck(f)
		}
	case "workspace/didChangeWorkspaceFolders":
		var p struct {
			Event struct {
				Added   []WorkspaceFolder `json:"added"`
				Removed []WorkspaceFolder `json:"removed"`
			} `json:"event"`
		}
		if err := decode(req, &p); err != nil {
			return err
		}
		for _, wf := range p.Event.Removed {
			s.removeFolder(wf.URI)
		}
		var added []*folder
		for _, wf := range p.Event.Added {
			if f := s.addFolder(wf.URI); f != nil {
				added = append(added, f)
			}
		}
		for _, f := range added {
			s.scheduleCheck(f)
		}
	}
	return nil
}

// initialize opens one workspace per folder and negotiates capabilities.
func (s *Server) initialize(_ context.Context, req *jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.caps = p.Capabilities
	if o := initOptions(p.InitializationOptions); o.InitialCheck != nil && !*o.InitialCheck {
		s.noInitialCheck = true
	}
	for _, e := range p.Capabilities.General.PositionEncodings {
		if e == encUTF8 {
			s.enc = encUTF8
		}
	}
	enc := s.enc
	s.state = stateRunning
	s.mu.Unlock()
	uris := []string{}
	for _, wf := range p.WorkspaceFolders {
		uris = append(uris, wf.URI)
	}
	if len(uris) == 0 && p.RootURI != "" {
		uris = append(uris, p.RootURI)
	}
	if len(uris) == 0 && p.RootPath != "" {
		uris = append(uris, pathToURI(p.RootPath))
	}
	for _, u := range uris {
		s.addFolder(u)
	}
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": enc,
			"textDocumentSync": map[string]any{
				"openClose": true, "change": 2, "save": map[string]any{"includeText": false},
			},
			"hoverProvider":           true,
			"codeLensProvider":        map[string]any{"resolveProvider": false},
			"codeActionProvider":      map[string]any{"codeActionKinds": []string{"quickfix", "refactor"}},
			"executeCommandProvider":  map[string]any{"commands": Commands},
			"workspaceSymbolProvider": true,
			"workspace": map[string]any{
				"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
			},
		},
		"serverInfo": map[string]any{"name": "gloss", "version": version},
	}, nil
}

// addFolder opens the workspace of a folder URI (once per engine root).
func (s *Server) addFolder(uri string) *folder {
	dir, err := uriToPath(uri)
	if err != nil {
		s.log.Printf("workspace folder: %v", err)
		return nil
	}
	root, err := memory.FindRoot(dir)
	if err != nil {
		s.log.Printf("workspace folder %s: %v", dir, err)
		return nil
	}
	s.mu.Lock()
	for _, f := range s.folders {
		if f.root == root {
			s.mu.Unlock()
			return nil
		}
	}
	s.mu.Unlock()
	w, err := s.pool.acquire(root, func(err error) { s.log.Printf("%v", err) })
	if err != nil {
		s.log.Printf("open workspace %s: %v", root, err)
		s.showMessage(1, fmt.Sprintf("gloss: cannot open the memory store of %s: %v", root, err))
		return nil
	}
	f := &folder{root: w.Root, w: w, ready: make(chan struct{})}
	s.mu.Lock()
	for _, g := range s.folders {
		if g.root == f.root { // two URIs of one root added at once
			s.mu.Unlock()
			_ = s.pool.release(f.root)
			return nil
		}
	}
	s.folders = append(s.folders, f)
	// Longest root first, so nested roots win.
	sort.SliceStable(s.folders, func(i, j int) bool { return len(s.folders[i].root) > len(s.folders[j].root) })
	s.mu.Unlock()
	s.pool.subscribe(s, f)
	return f
}

func (s *Server) removeFolder(uri string) {
	dir, err := uriToPath(uri)
	if err != nil {
		return
	}
	root, err := memory.FindRoot(dir)
	if err != nil {
		return
	}
	s.mu.Lock()
	var gone *folder
	for i, f := range s.folders {
		if f.root == root {
			gone = f
			s.folders = append(s.folders[:i:i], s.folders[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if gone != nil {
		s.pool.unsubscribe(s, gone.root)
		s.goBG(func() {
			gone.check.wait()
			if err := s.pool.release(gone.root); err != nil {
				s.log.Printf("close %s: %v", gone.root, err)
			}
		})
	}
}

// folderFor returns the folder containing the absolute path p, or nil.
func (s *Server) folderFor(p string) *folder {
	s.mu.Lock()
	folders := s.folders
	s.mu.Unlock()
	try := func(p string) *folder {
		for _, f := range folders {
			if p == f.root || strings.HasPrefix(p, f.root+string(filepath.Separator)) {
				return f
			}
		}
		return nil
	}
	if f := try(p); f != nil {
		return f
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		return try(real)
	} else if err != nil {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return try(filepath.Join(dir, filepath.Base(p)))
		}
	}
	return nil
}

func (s *Server) allFolders() []*folder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*folder(nil), s.folders...)
}

// initialized starts the first check of every folder with work-done
// progress and registers the file watcher.
func (s *Server) initialized() {
	s.mu.Lock()
	caps := s.caps
	folders := append([]*folder(nil), s.folders...)
	skip := s.noInitialCheck
	s.mu.Unlock()
	if caps.Workspace.DidChangeWatchedFiles.DynamicRegistration {
		s.goBG(func() {
			params := map[string]any{"registrations": []registration{{
				ID: "gloss-watch", Method: "workspace/didChangeWatchedFiles",
				RegisterOptions: map[string]any{"watchers": []map[string]any{{"globPattern": "**/*"}}},
			}}}
			if _, err := s.conn.Call(context.Background(), "client/registerCapability", params, nil); err != nil && !s.closing() {
				s.log.Printf("register file watcher: %v", err)
			}
		})
	}
	if skip {
		return
	}
	s.goBG(func() {
		token := "gloss-index"
		progress := false
		if caps.Window.WorkDoneProgress {
			_, err := s.conn.Call(context.Background(), "window/workDoneProgress/create", map[string]any{"token": token}, nil)
			progress = err == nil
		}
		if progress {
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "begin", Title: "gloss: indexing", Message: fmt.Sprintf("%d folder(s)", len(folders))}})
		}
		for i, f := range folders {
			if progress {
				pct := i * 100 / max(1, len(folders))
				s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "report", Message: filepath.Base(f.root), Percentage: &pct}})
			}
			s.runCheck(f)
		}
		if progress {
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "end", Message: "memories checked"}})
		}
	})
}

// scheduleCheck runs Check for f in the background, coalescing bursts.
func (s *Server) scheduleCheck(f *folder) {
	s.bg.Add(1)
	if !f.check.run(func() { s.runCheck(f) }, s.bg.Done) {
		s.bg.Done()
	}
}

// runCheck runs Check on f and republishes its diagnostics.
func (s *Server) runCheck(f *folder) {
	if s.closing() {
		return
	}
	res, err := f.w.Check(context.Background())
	f.once.Do(func() { close(f.ready) })
	if err != nil {
		s.log.Printf("check %s: %v", f.root, err)
		return
	}
	s.changed(f, res.Memories, res.AnchorsChanged())
	if res.AnchorsChanged() {
		s.pool.changed(f.root, s)
	}
}

// storeChangedElsewhere is called when another session changed the store
// of f: requests see the change at once, diagnostics and code lenses are
// refreshed in the background.
func (s *Server) storeChangedElsewhere(f *folder) {
	if s.closing() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateShutdown {
		return
	}
	s.gen.Add(1)
	s.goBG(func() { s.changed(f, nil, true) })
}

// changed is called after the store of f changed: it republishes all
// diagnostics of f (mems is the full list, nil to read it) and refreshes
// code lenses.
func (s *Server) changed(f *folder, mems []*memory.Memory, refresh bool) {
	s.gen.Add(1)
	if mems == nil {
		var err error
		if mems, err = f.w.List(); err != nil {
			s.log.Printf("list %s: %v", f.root, err)
			return
		}
	}
	s.publishFolder(f, mems)
	if refresh {
		s.refreshLenses()
	}
}

func (s *Server) refreshLenses() {
	s.mu.Lock()
	ok := s.caps.Workspace.CodeLens.RefreshSupport
	s.mu.Unlock()
	if !ok || s.closing() {
		return
	}
	s.goBG(func() {
		if _, err := s.conn.Call(context.Background(), "workspace/codeLens/refresh", nil, nil); err != nil && !s.closing() {
			s.log.Printf("codeLens/refresh: %v", err)
		}
	})
}

func (s *Server) notify(method string, params any) {
	if s.closing() {
		return
	}
	if err := s.conn.Notify(context.Background(), method, params); err != nil && !s.closing() {
		s.log.Printf("%s: %v", method, err)
	}
}

func (s *Server) showMessage(typ int, msg string) {
	if s.conn == nil {
		return
	}
	s.notify("window/showMessage", map[string]any{"type": typ, "message": msg})
}

// showDocument asks the client to open uri (when it can).
func (s *Server) showDocument(uri string) {
	s.mu.Lock()
	ok := s.caps.Window.ShowDocument.Support
	s.mu.Unlock()
	if !ok {
		return
	}
	s.goBG(func() {
		if _, err := s.conn.Call(context.Background(), "window/showDocument", showDocumentParams{URI: uri, TakeFocus: true}, nil); err != nil && !s.closing() {
			s.log.Printf("showDocument: %v", err)
		}
	})
}

// reqCtx is a request's own context; Value falls back to the jsonrpc2
// request context for its Async release token.
type reqCtx struct {
	context.Context
	req context.Context
}

func (c reqCtx) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.req.Value(key)
}

// coalescer runs a function in the background at most once at a time; a
// request while it runs makes it run once more afterwards.
type coalescer struct {
	mu      sync.Mutex
	running bool
	dirty   bool
	idle    *sync.Cond
}

// run starts fn (then done) unless it is already running, in which case it
// marks a rerun and returns false (done is not called).
func (c *coalescer) run(fn func(), done func()) bool {
	c.mu.Lock()
	if c.running {
		c.dirty = true
		c.mu.Unlock()
		return false
	}
	c.running = true
	c.mu.Unlock()
	go func() {
		defer done()
		for {
			fn()
			c.mu.Lock()
			if !c.dirty {
				c.running = false
				if c.idle != nil {
					c.idle.Broadcast()
				}
				c.mu.Unlock()
				return
			}
			c.dirty = false
			c.mu.Unlock()
		}
	}()
	return true
}

// wait blocks until no run is in progress.
func (c *coalescer) wait() {
	c.mu.Lock()
	if c.idle == nil {
		c.idle = sync.NewCond(&c.mu)
	}
	for c.running {
		c.idle.Wait()
	}
	c.mu.Unlock()
}
