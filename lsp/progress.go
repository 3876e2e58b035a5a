package lsp

import (
	"context"
	"encoding/json"
	"fmt"
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
// ctx carrying the api.Progress the command calls and a function that
// ends the progress; without a token both do nothing.
func (s *Server) commandProgress(ctx context.Context, raw json.RawMessage, title string) (context.Context, func()) {
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
		return ctx, func() {}
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
	return api.WithProgress(ctx, report), end
}
