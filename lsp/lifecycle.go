package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/internal/syncx"
)

// Serve runs the server on rwc (LSP Content-Length framing) until the
// client sends exit or closes the connection, then closes the workspaces.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	s.conn = lspconn.NewConn(rwc)
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
	s.stopBackground()
	if s.opts.Pool == nil {
		if cerr := s.pool.Close(); cerr != nil {
			s.log.Printf("%v", cerr)
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, jsonrpc2.ErrClientClosing) {
		err = nil
	}
	return err
}

// bgWait bounds how long a session's end waits for its background work
// (cancelled first, so it normally ends in milliseconds).
const bgWait = 2 * time.Second

// LateReleaseLog starts the log line a session writes when its
// background work, still running bgWait (2 s) after the session ended
// (the "background work still running" line), has ended and the
// session's folders are released; the time since the session's end
// follows it. Tests wait for it instead of timing the work.
const LateReleaseLog = "background work of the ended session ended, its folders released after"

// stopBackground ends the session's background work and releases its
// folders: other sessions stop sending it changes, its context and
// requests are cancelled, the parses of its open documents are cancelled
// and, when the workspaces are the session's own (no daemon), all their
// parses are interrupted. The folders are released once
// the background work has ended, even when that takes longer than bgWait
// (then in the background: a reference is never leaked, and the pool's
// Close waits for it).
func (s *Server) stopBackground() {
	for _, f := range s.allFolders() {
		s.pool.Unsubscribe(s, f.root)
		f.stopReembed()
	}
	s.stopWatcher()
	s.cancel()
	s.reqMu.Lock()
	for _, cancel := range s.inflight {
		cancel()
	}
	s.reqMu.Unlock()
	if s.opts.Pool == nil {
		s.pool.Interrupt()
	}
	// The parses of the session's documents end now (a shared workspace's
	// other parses go on).
	s.mu.Lock()
	var paths []string
	for _, d := range s.docs {
		paths = append(paths, d.path)
	}
	s.mu.Unlock()
	for _, p := range paths {
		if f := s.folderFor(p); f != nil {
			f.w.CancelDocument(p)
		}
	}
	s.mu.Lock()
	folders := s.folders
	s.folders = nil
	s.mu.Unlock()
	release := func() {
		for _, f := range folders {
			if cerr := s.pool.Release(f.root); cerr != nil {
				s.log.Printf("close %s: %v", f.root, cerr)
			}
		}
	}
	if syncx.WaitTimeout(&s.bg, bgWait) {
		release()
		return
	}
	s.log.Printf("background work still running %s after the session ended: its folders are released when it ends", bgWait)
	start := time.Now().Add(-bgWait)
	go func() {
		s.bg.Wait()
		release()
		s.log.Printf("%s: %s", LateReleaseLog, time.Since(start).Round(time.Millisecond))
	}()
}

// initialize opens one workspace per folder and negotiates capabilities.
func (s *Server) initialize(_ context.Context, req *jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.caps = p.Capabilities
	o := initOptions(p.InitializationOptions)
	if o.InitialCheck != nil && !*o.InitialCheck {
		s.noInitialCheck = true
	}
	if o.WatchFiles != nil && !*o.WatchFiles {
		s.noWatcher = true
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
			"executeCommandProvider":  map[string]any{"commands": api.Names()},
			"workspaceSymbolProvider": true,
			"workspace": map[string]any{
				"workspaceFolders": map[string]any{"supported": true, "changeNotifications": true},
			},
		},
		"serverInfo": map[string]any{"name": "gloss", "version": version},
	}, nil
}

// initialized starts the first check of every folder with work-done
// progress and registers the file watcher.
func (s *Server) initialized() {
	s.mu.Lock()
	caps := s.caps
	folders := append([]*folder(nil), s.folders...)
	skip := s.noInitialCheck
	noWatcher := s.noWatcher
	s.mu.Unlock()
	if caps.Workspace.DidChangeWatchedFiles.DynamicRegistration {
		s.goBG(func() {
			params := map[string]any{"registrations": []registration{{
				ID: "gloss-watch", Method: "workspace/didChangeWatchedFiles",
				RegisterOptions: map[string]any{"watchers": []map[string]any{{"globPattern": "**/*"}}},
			}}}
			if _, err := s.conn.Call(s.ctx, "client/registerCapability", params, nil); err != nil && !s.closing() {
				s.log.Printf("register file watcher: %v", err)
			}
		})
	} else if !noWatcher {
		s.goBG(func() { s.startWatcher(folders) })
	}
	if skip {
		return
	}
	s.goBG(func() {
		token := "gloss-index"
		progress := false
		if caps.Window.WorkDoneProgress {
			_, err := s.conn.Call(s.ctx, "window/workDoneProgress/create", map[string]any{"token": token}, nil)
			progress = err == nil
		}
		if progress {
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "begin", Title: "gloss: indexing", Message: fmt.Sprintf("%d folder(s)", len(folders))}})
		}
		for i, f := range folders {
			var o index.RunOptions
			if progress {
				o.Progress = s.indexProgress(token, f, i, len(folders))
			}
			s.runCheckWith(f, o)
		}
		if progress {
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "end", Message: "memories checked"}})
		}
	})
}
