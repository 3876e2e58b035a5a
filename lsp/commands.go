package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// executeCommand decodes a gloss.* command, runs it on the engine and
// returns its result. Commands that change the store run on the read loop
// (a request sent after one sees its effect); the others capture the open
// documents and then run concurrently.
func (s *Server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	c := api.Lookup(p.Command)
	if c == nil {
		_, err := api.Dispatch(ctx, nil, p.Command, nil)
		return nil, rpcError(err)
	}
	var raw []byte
	if len(p.Arguments) > 0 {
		raw = p.Arguments[0]
	}
	if err := s.refuseDraft(c, raw); err != nil {
		return nil, err
	}
	e := &api.Engine{Host: s.host()}
	if !c.Writes() {
		jsonrpc2.Async(ctx)
	}
	if c == api.Command(api.ImportGit) {
		var end func()
		e.Progress, end = s.commandProgress(ctx, p.WorkDoneToken, "gloss: importing git history")
		defer end()
	}
	res, err := c.Dispatch(ctx, e, raw)
	if fr, ok := res.(api.ForgetResult); ok && err == nil {
		s.offerUndo(fr)
	}
	if v, ok := res.(memory.View); ok && err == nil && c == api.Command(api.Remember) {
		s.offerSupersede(v)
	}
	if sr, ok := res.(api.ShowResult); ok && err == nil {
		var a api.ShowArgs
		if json.Unmarshal(raw, &a) == nil && a.Present {
			s.present(a, sr)
		}
	}
	return res, rpcError(err)
}

// offerUndo tells the user a memory was forgotten, with an "Undo" action
// (window/showMessageRequest) that restores it (gloss.restore).
func (s *Server) offerUndo(fr api.ForgetResult) {
	s.goBG(func() {
		var choice *struct {
			Title string `json:"title"`
		}
		msg := fmt.Sprintf("gloss: forgot memory “%s” (it can be restored for %s: gloss.restore)", fr.Title, restoreDays())
		params := map[string]any{"type": 3, "message": msg, "actions": []map[string]string{{"title": "Undo"}}}
		if _, err := s.conn.Call(s.ctx, "window/showMessageRequest", params, &choice); err != nil || choice == nil || choice.Title != "Undo" {
			return
		}
		e := &api.Engine{Host: s.host()}
		if _, err := e.Restore(s.ctx, api.IDArgs{ID: fr.Forgotten}); err != nil {
			s.showMessage(1, "gloss: "+err.Error())
			return
		}
		s.showMessage(3, fmt.Sprintf("gloss: restored memory “%s”", fr.Title))
	})
}

// restoreDays describes memory.RestoreWindow.
func restoreDays() string {
	return fmt.Sprintf("%d days", int(memory.RestoreWindow.Hours()/24))
}

// rpcError turns an *api.Error into the JSON-RPC error of the same code.
func rpcError(err error) error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return jsonrpc2.NewError(jsonrpc2.Code(ae.Code), ae.Message)
	}
	return err
}

// host is the api.Host of one request: the session's folders and the open
// documents as they were when the request arrived.
type host struct {
	s       *Server
	folders []*folder
	docs    map[string]*text // by absolute path
}

// host captures the session's folders and open documents.
func (s *Server) host() *host {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &host{s: s, folders: append([]*folder(nil), s.folders...), docs: make(map[string]*text, len(s.docs))}
	for _, d := range s.docs {
		h.docs[d.path] = d.text
	}
	return h
}

func (h *host) folder(w *memory.Workspace) *folder {
	for _, f := range h.folders {
		if f.w == w {
			return f
		}
	}
	return nil
}

// Workspaces implements api.Host.
func (h *host) Workspaces() []*memory.Workspace {
	out := make([]*memory.Workspace, len(h.folders))
	for i, f := range h.folders {
		out[i] = f.w
	}
	return out
}

// Document implements api.Host.
func (h *host) Document(path string) ([]byte, bool) {
	if t := h.docs[path]; t != nil {
		return t.src, true
	}
	return nil, false
}

// Changed implements api.Host: requests see the change at once;
// diagnostics and lenses are republished in the background, and the other
// sessions of the workspace are told.
func (h *host) Changed(w *memory.Workspace, mems []*memory.Memory, anchorsChanged bool) {
	f := h.folder(w)
	if f == nil {
		return
	}
	h.s.goBG(func() { h.s.changed(f, mems, true) })
	if anchorsChanged {
		h.s.pool.Changed(f.root, h.s)
	}
}

// Indexed implements api.Host: a run that found changed files is followed
// by a check.
func (h *host) Indexed(w *memory.Workspace, st index.Stats) {
	if f := h.folder(w); f != nil && len(st.Changed) > 0 {
		h.s.scheduleCheck(f)
	}
}

// ShowDocument implements api.Host.
func (h *host) ShowDocument(path string) { h.s.showDocument(pathToURI(path)) }
