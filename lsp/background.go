package lsp

import (
	"context"
	"sync"
)

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
