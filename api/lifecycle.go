package api

import (
	"context"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// ReviewArgs are the arguments of gloss.review: Limit 0 means every
// memory that needs a look (capped at MaxLimit).
type ReviewArgs struct {
	Limit int `json:"limit,omitempty"`
}

// ReviewItem is one memory of gloss.review: its view, why it needs a
// look (memory.Reason*: expired, needs_review, conflicting, stale,
// low_confidence, unused), the one action to take (memory.Action*:
// verify, update, forget, relate) and a sentence for people.
type ReviewItem struct {
	memory.View
	Reason string `json:"reason"`
	Action string `json:"action"`
	Detail string `json:"detail"`
}

// ReviewResult is the result of gloss.review, most urgent first.
type ReviewResult struct {
	Items []ReviewItem `json:"items"`
}

// PruneArgs are the arguments of gloss.prune: DryRun lists and forgets
// nothing; Yes lets it forget project memories (their committed files).
type PruneArgs struct {
	DryRun bool `json:"dry_run,omitempty"`
	Yes    bool `json:"yes,omitempty"`
}

// PruneItem is one memory gloss.prune forgot (or, dry, would forget):
// Reason is expired or unused; Skipped says why it was left alone.
type PruneItem struct {
	memory.View
	Reason  string `json:"reason"`
	Detail  string `json:"detail"`
	Skipped string `json:"skipped,omitempty"`
}

// PruneResult is the result of gloss.prune: Pruned counts the memories
// forgotten (0 when DryRun); each can be restored (gloss.restore) for
// memory.RestoreWindow.
type PruneResult struct {
	DryRun bool        `json:"dry_run"`
	Pruned int         `json:"pruned"`
	Items  []PruneItem `json:"items"`
}

// VerifyAllArgs are the arguments of gloss.verifyAll: the memories with
// an anchor whose path matches Path (a glob, or a directory), only those
// whose anchors are all fresh or moved with AllFresh; at least one is
// required.
type VerifyAllArgs struct {
	Path     string `json:"path,omitempty"`
	AllFresh bool   `json:"all_fresh,omitempty"`
}

// VerifyAllResult is the result of gloss.verifyAll: the memories
// verified and those that could not be (a deleted anchor), with why.
type VerifyAllResult struct {
	Verified []memory.View          `json:"verified"`
	Failed   []memory.VerifyFailure `json:"failed"`
}

// Review implements Interface: every workspace's items, in workspace
// order, then cut to the limit.
func (e *Engine) Review(_ context.Context, a ReviewArgs) (ReviewResult, error) {
	if a.Limit < 0 {
		return ReviewResult{}, invalid("%s: negative \"limit\"", Review.name)
	}
	out := ReviewResult{Items: []ReviewItem{}}
	for _, w := range e.Host.Workspaces() {
		items, err := w.Review(0)
		if err != nil {
			return out, &Error{Code: CodeInternalError, Message: "review " + w.Root + ": " + err.Error()}
		}
		for _, it := range items {
			out.Items = append(out.Items, ReviewItem{View: memory.ViewOf(it.Memory), Reason: it.Reason, Action: it.Action, Detail: it.Detail})
		}
	}
	if limit := min(a.Limit, MaxLimit); limit > 0 && len(out.Items) > limit {
		out.Items = out.Items[:limit]
	}
	return out, nil
}

// Prune implements Interface.
func (e *Engine) Prune(_ context.Context, a PruneArgs) (PruneResult, error) {
	out := PruneResult{DryRun: a.DryRun, Items: []PruneItem{}}
	for _, w := range e.Host.Workspaces() {
		items, err := w.Prune(memory.PruneRequest{DryRun: a.DryRun, Project: a.Yes})
		if err != nil {
			return out, &Error{Code: CodeInternalError, Message: "prune " + w.Root + ": " + err.Error()}
		}
		n := 0
		for _, it := range items {
			out.Items = append(out.Items, PruneItem{View: memory.ViewOf(it.Memory), Reason: it.Reason, Detail: it.Detail, Skipped: it.Skipped})
			if !a.DryRun && it.Skipped == "" {
				n++
			}
		}
		out.Pruned += n
		if n > 0 {
			e.Host.Changed(w, nil, true)
		}
	}
	return out, nil
}

// VerifyAll implements Interface.
func (e *Engine) VerifyAll(ctx context.Context, a VerifyAllArgs) (VerifyAllResult, error) {
	out := VerifyAllResult{Verified: []memory.View{}, Failed: []memory.VerifyFailure{}}
	for _, w := range e.Host.Workspaces() {
		done, failed, err := w.VerifyAll(ctx, memory.VerifyAllRequest{Path: a.Path, Fresh: a.AllFresh})
		if err != nil {
			return out, invalid("%s: %v", VerifyAll.name, err)
		}
		out.Verified = append(out.Verified, memory.Views(done)...)
		out.Failed = append(out.Failed, failed...)
		if len(done) > 0 {
			e.Host.Changed(w, nil, true)
		}
	}
	return out, nil
}

// now is the first workspace's clock (memory.Options.Now), else the
// system clock.
func (e *Engine) now() time.Time {
	if ws := e.Host.Workspaces(); len(ws) > 0 {
		return ws[0].Now()
	}
	return time.Now()
}

// lifecycleRequest sets req's expiry (a.Expires, memory.ParseExpiry) and
// pin from a.
func (e *Engine) lifecycleRequest(a RememberArgs, req *memory.RememberRequest) error {
	req.Pinned = a.Pinned
	if a.Expires == "" {
		return nil
	}
	t, err := memory.ParseExpiry(a.Expires, e.now())
	if err != nil {
		return err // the item's error (Remember names the command)
	}
	req.ExpiresAt = t
	return nil
}
