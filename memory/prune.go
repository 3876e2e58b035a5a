package memory

import (
	"context"
	"fmt"
	"time"
)

// PruneRequest selects what Prune does.
type PruneRequest struct {
	// DryRun lists the memories Prune would forget and forgets none.
	DryRun bool
	// Project lets Prune forget project memories too (their committed
	// .gloss/memories files are deleted); without it they are listed as
	// skipped.
	Project bool
}

// PruneItem is one memory Prune forgot (or would forget): Reason is
// ReasonExpired or ReasonUnused (unused and of low confidence); Skipped,
// when not "", says why it was left alone.
type PruneItem struct {
	Memory  *Memory
	Reason  string
	Detail  string
	Skipped string
}

// Prune forgets expired memories and unused ones of low confidence
// (unused for UnusedDays and confidence below LowConfidence; never a
// pinned one, nor one imported from git history, whose dates are its
// commit's), each through Forget, so each leaves a tombstone that
// Restore undoes for RestoreWindow. Project memories are skipped unless
// req.Project. It returns every candidate in id order.
func (w *Workspace) Prune(req PruneRequest) ([]PruneItem, error) {
	now := w.now()
	mems, err := w.selectMemories(func(m *Memory) bool { return expired(m, now) || prunableUnused(m, now) })
	if err != nil {
		return nil, err
	}
	var out []PruneItem
	for _, m := range mems {
		it := PruneItem{Memory: m}
		switch {
		case expired(m, now):
			it.Reason, it.Detail = ReasonExpired, "expired "+ago(now.Sub(m.ExpiresAt))+" ago"
		case prunableUnused(m, now):
			it.Reason = ReasonUnused
			it.Detail = fmt.Sprintf("confidence %.2f, not read or verified for %s", m.Confidence, ago(now.Sub(lastUse(m))))
		default:
			continue
		}
		switch {
		case m.Scope == ScopeProject && !req.Project:
			it.Skipped = "project memory (a committed file): prune --yes forgets it"
		case !req.DryRun:
			if _, err := w.Forget(m.ID); err != nil {
				it.Skipped = err.Error()
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// prunableUnused reports whether m is pruned as unused at now: not
// pinned, not imported from git history, of low confidence and unused.
func prunableUnused(m *Memory, now time.Time) bool {
	return !m.Pinned && m.Source != "imported_git" && m.Confidence < LowConfidence && unused(m, now)
}

// VerifyAllRequest selects the memories VerifyAll re-verifies: with
// Path, those with an anchor whose path matches it (Filter.Path syntax);
// with Fresh, only those whose anchors are all fresh or moved; at least
// one must be set.
type VerifyAllRequest struct {
	Path  string
	Fresh bool
}

// VerifyFailure is a memory VerifyAll could not verify, with why.
type VerifyFailure struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// VerifyAll re-verifies many memories at once (Verify on each, the index
// brought up to date once): their anchors are re-made at the code as it
// is and their confidence decay starts again. A memory that cannot be
// verified (a deleted anchor) is reported and the others go on. It fails
// on a request that selects nothing, a bad path pattern or a store error.
func (w *Workspace) VerifyAll(ctx context.Context, req VerifyAllRequest) ([]*Memory, []VerifyFailure, error) {
	if req.Path == "" && !req.Fresh {
		return nil, nil, fmt.Errorf("say which memories to verify: a path pattern, fresh ones, or both")
	}
	f := Filter{Path: req.Path}
	if req.Fresh {
		f.Stale = "exclude"
	}
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	if _, err := w.Index(ctx); err != nil {
		return nil, nil, err
	}
	mems, err := w.List()
	if err != nil {
		return nil, nil, err
	}
	var done []*Memory
	var failed []VerifyFailure
	for _, m := range mems {
		if !f.Keep(m) || (req.Path != "" && len(m.Anchors) == 0) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return done, failed, err
		}
		v, err := w.verifyIndexed(m.ID, nil)
		if err != nil {
			failed = append(failed, VerifyFailure{ID: m.ID, Error: err.Error()})
			continue
		}
		done = append(done, v)
	}
	return done, failed, nil
}
