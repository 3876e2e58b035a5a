package lsp

import (
	"context"
)

func (s *Server) refreshLenses() {
	s.mu.Lock()
	ok := s.caps.Workspace.CodeLens.RefreshSupport
	s.mu.Unlock()
	if !ok || s.closing() {
		return
	}
	s.goBG(func() {
		if _, err := s.conn.Call(s.ctx, "workspace/codeLens/refresh", nil, nil); err != nil && !s.closing() {
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
		if _, err := s.conn.Call(s.ctx, "window/showDocument", showDocumentParams{URI: uri, TakeFocus: true}, nil); err != nil && !s.closing() {
			s.log.Printf("showDocument: %v", err)
		}
	})
}
