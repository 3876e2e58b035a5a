// Package lsp is gloss's language server: a protocol adapter that serves
// memories as hover, code lenses, diagnostics for stale anchors, code
// actions, workspace symbols and workspace/executeCommand commands next to
// the user's own language server (see DESIGN.md, "LSP surface", and
// docs/commands.md). It holds no policy: every handler takes a document
// snapshot, calls the engine (package memory, or package api for
// commands) and converts the answer. One file per feature: lifecycle,
// textsync, folders, hover, codelens, codeaction, diagnostics, symbol,
// commands, snapshot.
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
	"fmt"
	"io"
	"log"
	"os"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/internal/syncx"
	"github.com/gloss-dev/gloss/internal/watch"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/wspool"
)

// Options configure a Server.
type Options struct {
	// Memory is passed to memory.Open for every workspace folder.
	Memory memory.Options
	// Log receives diagnostic messages; nil means os.Stderr.
	Log io.Writer
	// Version is reported in serverInfo.
	Version string
	// Pool, when set, is shared with other sessions of the process (the
	// daemon): the server opens its folders there and sees the other
	// sessions' changes. nil means a private pool, closed when Serve
	// returns (gloss lsp --no-daemon).
	Pool *wspool.Pool
}

// Server is one language-server session over one connection.
type Server struct {
	opts Options
	log  *log.Logger
	conn jsonrpc2.Conn
	pool *wspool.Pool

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
	// noWatcher: the client asked for no file watcher of the server's own
	// (initializationOptions watchFiles false).
	noWatcher bool
	published map[string]bool // URIs with non-empty gloss diagnostics
	docRuns   map[string]*syncx.Coalescer
	// unresolvable are the open documents whose resolution failed (binary,
	// oversize), logged once until they close.
	unresolvable map[string]bool
	// failed are the workspace folders (by URI) whose store could not be
	// opened, with the error; retrying is true while a retry runs
	// (folders.go, retryFolders).
	failed   map[string]error
	retrying map[string]bool
	exited   chan struct{}
	exitOnce sync.Once
	pubMu    sync.Mutex
	bg       sync.WaitGroup
	// ctx is the session's context: background work (checks, calls to the
	// client) runs under it; Serve cancels it when the session ends.
	ctx    context.Context
	cancel context.CancelFunc
	// watcher is the session's own file watcher (watch.go), for clients
	// without workspace/didChangeWatchedFiles; guarded by mu.
	watcher *watch.Watcher
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
	check syncx.Coalescer
	ready chan struct{} // closed after the first check
	once  sync.Once
	// problems are the memory-file problems of the last check, as
	// diagnostics by URI (memfiles.go); guarded by Server.mu.
	problems map[string][]Diagnostic
	// stopReembed stops the $/progress reports of the folder's vector
	// re-embeddings (watchReembed).
	stopReembed func()
}

// NewServer returns a server; call Serve to run it.
func NewServer(opts Options) *Server {
	out := opts.Log
	if out == nil {
		out = os.Stderr
	}
	pool := opts.Pool
	if pool == nil {
		pool = wspool.New(opts.Memory)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		ctx: ctx, cancel: cancel,
		opts: opts, log: log.New(out, "gloss lsp: ", log.LstdFlags), pool: pool,
		docs: map[string]*document{}, enc: encUTF16, published: map[string]bool{},
		docRuns: map[string]*syncx.Coalescer{}, exited: make(chan struct{}), unresolvable: map[string]bool{},
		failed: map[string]error{}, retrying: map[string]bool{},
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
	}
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
		s.cancelRequest(req)
		return nil, nil
	}
	switch {
	case state == stateNew && req.IsCall():
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize", method)
	case state == stateNew:
		return nil, nil
	case state == stateShutdown && req.IsCall():
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", method)
	case !req.IsCall():
		// A notification error would close the connection: log instead.
		if err := s.notification(ctx, req); err != nil {
			s.log.Printf("%s: %v", method, err)
		}
		return nil, nil
	}
	ctx, done := s.track(ctx, req.ID())
	defer done()
	switch method {
	case "shutdown":
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		return nil, nil
	case "textDocument/hover":
		defer s.foreground()()
		return call(ctx, req, s.hover)
	case "textDocument/codeLens":
		defer s.foreground()()
		return call(ctx, req, s.codeLens)
	case "textDocument/codeAction":
		defer s.foreground()()
		return call(ctx, req, s.codeActions)
	case "workspace/symbol":
		defer s.foreground()()
		return call(ctx, req, s.workspaceSymbol)
	case "workspace/executeCommand":
		return call(ctx, req, s.executeCommand)
	}
	return nil, fmt.Errorf("%q: %w", method, jsonrpc2.ErrMethodNotFound)
}

// foreground marks an editor request as foreground work in every folder
// (memory.Workspace.Foreground: background indexing starts no new parse)
// until the returned release is called.
func (s *Server) foreground() (release func()) {
	var releases []func()
	for _, f := range s.allFolders() {
		releases = append(releases, f.w.Foreground())
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}

// call decodes a request's params and runs its handler.
func call[P, R any](ctx context.Context, req *jsonrpc2.Request, fn func(context.Context, P) (R, error)) (any, error) {
	var p P
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	return fn(ctx, p)
}

// track gives a request its own cancellable context, cancelled by
// $/cancelRequest, that still carries the request's Async token: the
// request context of jsonrpc2 is pooled and must not be the parent of
// derived contexts (a cancel propagation goroutine would outlive it).
func (s *Server) track(ctx context.Context, id jsonrpc2.ID) (context.Context, func()) {
	base, cancel := context.WithCancel(context.Background())
	s.reqMu.Lock()
	s.inflight[id] = cancel
	s.reqMu.Unlock()
	return reqCtx{Context: base, req: ctx}, func() {
		s.reqMu.Lock()
		delete(s.inflight, id)
		s.reqMu.Unlock()
		cancel()
	}
}

// cancelRequest cancels the context of the request $/cancelRequest names.
func (s *Server) cancelRequest(req *jsonrpc2.Request) {
	var p cancelParams
	if json.Unmarshal(req.Params(), &p) != nil {
		return
	}
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
