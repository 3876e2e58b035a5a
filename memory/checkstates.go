package memory

import "context"

// CheckStates is CheckViews without the views: it indexes the working
// tree, re-resolves the anchors of files changed since the last check and
// stores their states, and returns a CheckResult whose Views is empty,
// reading no summary beyond its scope (the memory-file sync needs to know
// which memories are project scope). It is the daemon's warm-up check
// (wspool.Pool.Check), which prints nothing; errors are CheckViews'.
func (w *Workspace) CheckStates(ctx context.Context) (CheckResult, error) {
	return w.checkStates(ctx, false)
}
