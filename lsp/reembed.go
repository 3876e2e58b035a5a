package lsp

import (
	"fmt"
	"sync"

	"github.com/gloss-dev/gloss/memory"
)

// reembedReporter carries the re-embedding progress of one folder's
// vector index (memory.Workspace.WatchReembed) from the re-embedding's
// goroutine, which must not wait on the client, to the session's
// reporting goroutine (reportReembed): only the latest status is kept.
type reembedReporter struct {
	mu      sync.Mutex
	st      memory.ReembedStatus
	running bool
	wake    chan struct{} // capacity 1: a status is waiting
	quit    chan struct{} // closed by stop
	unwatch func()
	once    sync.Once
}

func (r *reembedReporter) set(st memory.ReembedStatus, running bool) {
	r.mu.Lock()
	r.st, r.running = st, running
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// stop ends the watch and the reporting goroutine; it may be called more
// than once.
func (r *reembedReporter) stop() {
	r.once.Do(func() {
		r.unwatch()
		close(r.quit)
	})
}

// watchReembed reports the re-embeddings of f's vector index with a new
// model (the built-in embedder's retraining, which the daemon's warm-up
// runs in the background) as work-done progress (LSP 3.17 "Work Done
// Progress": window/workDoneProgress/create, then $/progress begin,
// report with the percentage of memories embedded, end) when the client
// supports it. It returns the function that stops the reports.
func (s *Server) watchReembed(f *folder) func() {
	r := &reembedReporter{wake: make(chan struct{}, 1), quit: make(chan struct{})}
	r.unwatch = f.w.WatchReembed(r.set)
	if st, ok := f.w.Reembedding(); ok { // already under way
		r.set(st, true)
	}
	s.goBG(func() { s.reportReembed(r) })
	return r.stop
}

// reportReembed sends r's statuses as $/progress until r stops or the
// session ends.
func (s *Server) reportReembed(r *reembedReporter) {
	var token any
	last, lastErr := -1, ""
	for {
		select {
		case <-r.quit:
			if token != nil {
				s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "end"}})
			}
			return
		case <-s.ctx.Done():
			return
		case <-r.wake:
		}
		r.mu.Lock()
		st, running := r.st, r.running
		r.mu.Unlock()
		if !running {
			if token != nil {
				s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "end", Message: "memories re-embedded with " + st.Model}})
			}
			token, last, lastErr = nil, -1, ""
			continue
		}
		if token == nil {
			s.mu.Lock()
			supported := s.caps.Window.WorkDoneProgress
			s.mu.Unlock()
			if !supported || s.conn == nil {
				continue
			}
			t := fmt.Sprintf("gloss-reembed-%d", progressSeq.Add(1))
			if _, err := s.conn.Call(s.ctx, "window/workDoneProgress/create", map[string]any{"token": t}, nil); err != nil {
				continue
			}
			token = t
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "begin", Title: "gloss: re-embedding memories", Message: "searches use the current model meanwhile"}})
		}
		pct, msg := 0, "training the built-in model"
		if st.Phase == "embedding" {
			pct, msg = 100, fmt.Sprintf("%d/%d memories with %s", st.Done, st.Total, st.Model)
			if st.Total > 0 {
				pct = st.Done * 100 / st.Total
			}
		}
		if st.Error != "" { // a remote embedder failing: retried
			msg += " (retrying: " + st.Error + ")"
		}
		if pct != last || st.Error != lastErr {
			last, lastErr = pct, st.Error
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "report", Message: msg, Percentage: &pct}})
		}
	}
}
