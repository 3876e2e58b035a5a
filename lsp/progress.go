package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/gloss-dev/gloss/api"
)

// progressSeq numbers the progress tokens the server creates.
var progressSeq atomic.Int64

// commandProgress reports a long command's progress with $/progress (LSP
// 3.17, "Work Done Progress"): on the request's workDoneToken when the
// client sent one, else on a token created with
// window/workDoneProgress/create when the client supports it. It returns
// the api.Progress the command calls (api.Engine.Progress) and a function
// that ends the progress; without a token the first is nil and the second
// does nothing.
func (s *Server) commandProgress(ctx context.Context, raw json.RawMessage, title string) (api.Progress, func()) {
	var token any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &token)
	}
	s.mu.Lock()
	supported := s.caps.Window.WorkDoneProgress
	s.mu.Unlock()
	if token == nil && supported && s.conn != nil {
		t := fmt.Sprintf("gloss-command-%d", progressSeq.Add(1))
		if _, err := s.conn.Call(ctx, "window/workDoneProgress/create", map[string]any{"token": t}, nil); err == nil {
			token = t
		}
	}
	if token == nil {
		return nil, func() {}
	}
	s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "begin", Title: title}})
	var mu sync.Mutex
	last := -1
	report := func(done, total int) {
		pct := 100
		if total > 0 {
			pct = done * 100 / total
		}
		mu.Lock()
		changed := pct != last
		last = pct
		mu.Unlock()
		if changed {
			s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "report", Message: fmt.Sprintf("%d/%d commits", done, total), Percentage: &pct}})
		}
	}
	end := func() { s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "end"}}) }
	return report, end
}

// indexProgress returns the index.RunOptions.Progress of folder f, the
// i-th of n indexed at start-up: a $/progress report on token whenever
// the percentage of all folders' work changes ("prometheus: 120/979
// files").
func (s *Server) indexProgress(token string, f *folder, i, n int) func(done, total int) {
	last := -1
	name := filepath.Base(f.root)
	return func(done, total int) {
		frac := 1.0
		if total > 0 {
			frac = float64(done) / float64(total)
		}
		pct := int((float64(i) + frac) * 100 / float64(max(1, n)))
		if pct == last {
			return
		}
		last = pct
		s.notify("$/progress", progressParams{Token: token, Value: workDoneProgress{Kind: "report",
			Message: fmt.Sprintf("%s: %d/%d files", name, done, total), Percentage: &pct}})
	}
}
