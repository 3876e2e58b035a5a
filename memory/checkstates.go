package memory

import (
	"context"

	"github.com/gloss-dev/gloss/index"
)

// CheckStates is CheckViews without the views: it indexes the working
// tree, re-resolves the anchors of files changed since the last check and
// stores their states, and returns a CheckResult whose Views is empty,
// reading no summary beyond its scope (the memory-file sync needs to know
// which memories are project scope). It is the daemon's warm-up check
// (wspool.Pool.Check), which prints nothing; errors are CheckViews'.
func (w *Workspace) CheckStates(ctx context.Context) (CheckResult, error) {
	return w.checkStates(ctx, index.RunOptions{}, false)
}

// CheckStatesWith is CheckStates with the options o of its indexing run
// (index.RunOptions: o.Progress is called with the files parsed of those
// to parse, as the language server's start-up check reports $/progress).
// Its Memories is nil (Updated counts the memories it re-resolved and
// wrote back): the language server reads the stale ones to publish
// diagnostics (StaleMemories). Its first check of a store that has
// no check states (written by an older gloss, or never checked) visits
// every anchored file, as Check does.
func (w *Workspace) CheckStatesWith(ctx context.Context, o index.RunOptions) (CheckResult, error) {
	return w.checkStates(ctx, o, false)
}
