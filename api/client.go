package api

import (
	"context"

	"github.com/gloss-dev/gloss/memory"
)

// The methods of Client: each is the table entry's remote call.

// Remember implements Interface.
func (c Client) Remember(ctx context.Context, a RememberArgs) (memory.View, error) {
	return call(ctx, c, Remember, a)
}

// RememberBatch implements Interface.
func (c Client) RememberBatch(ctx context.Context, a RememberBatchArgs) (RememberBatchResult, error) {
	return call(ctx, c, RememberBatch, a)
}

// MemoriesAt implements Interface.
func (c Client) MemoriesAt(ctx context.Context, a Location) (MemoriesResult, error) {
	return call(ctx, c, MemoriesAt, a)
}

// MemoriesForSymbol implements Interface.
func (c Client) MemoriesForSymbol(ctx context.Context, a SymbolArgs) (MemoriesResult, error) {
	return call(ctx, c, MemoriesForSymbol, a)
}

// Search implements Interface.
func (c Client) Search(ctx context.Context, a SearchArgs) (SearchResult, error) {
	return call(ctx, c, Search, a)
}

// Show implements Interface.
func (c Client) Show(ctx context.Context, a ShowArgs) (ShowResult, error) {
	return call(ctx, c, Show, a)
}

// Update implements Interface.
func (c Client) Update(ctx context.Context, a UpdateArgs) (memory.View, error) {
	return call(ctx, c, Update, a)
}

// Verify implements Interface.
func (c Client) Verify(ctx context.Context, a IDArgs) (memory.View, error) {
	return call(ctx, c, Verify, a)
}

// Forget implements Interface.
func (c Client) Forget(ctx context.Context, a IDArgs) (ForgetResult, error) {
	return call(ctx, c, Forget, a)
}

// Restore implements Interface.
func (c Client) Restore(ctx context.Context, a IDArgs) (memory.View, error) {
	return call(ctx, c, Restore, a)
}

// Check implements Interface.
func (c Client) Check(ctx context.Context, a NoArgs) (CheckResult, error) {
	return call(ctx, c, Check, a)
}

// List implements Interface.
func (c Client) List(ctx context.Context, a ListArgs) (ListResult, error) {
	return call(ctx, c, List, a)
}

// Status implements Interface.
func (c Client) Status(ctx context.Context, a NoArgs) (StatusResult, error) {
	return call(ctx, c, Status, a)
}

// Index implements Interface.
func (c Client) Index(ctx context.Context, a NoArgs) (IndexResults, error) {
	return call(ctx, c, Index, a)
}

// Impact implements Interface.
func (c Client) Impact(ctx context.Context, a ImpactArgs) (ImpactResult, error) {
	return call(ctx, c, Impact, a)
}

// Context implements Interface.
func (c Client) Context(ctx context.Context, a ContextArgs) (ContextResult, error) {
	return call(ctx, c, Context, a)
}

// Share implements Interface.
func (c Client) Share(ctx context.Context, a IDArgs) (memory.View, error) {
	return call(ctx, c, Share, a)
}

// Unshare implements Interface.
func (c Client) Unshare(ctx context.Context, a IDArgs) (memory.View, error) {
	return call(ctx, c, Unshare, a)
}

// Export implements Interface.
func (c Client) Export(ctx context.Context, a ExportArgs) (ExportResult, error) {
	return call(ctx, c, Export, a)
}

// Import implements Interface.
func (c Client) Import(ctx context.Context, a ImportArgs) (ImportResult, error) {
	return call(ctx, c, Import, a)
}

// ForgetAll implements Interface.
func (c Client) ForgetAll(ctx context.Context, a ForgetAllArgs) (ForgetAllResult, error) {
	return call(ctx, c, ForgetAll, a)
}

// SuggestAnchors implements Interface.
func (c Client) SuggestAnchors(ctx context.Context, a SuggestAnchorsArgs) (SuggestAnchorsResult, error) {
	return call(ctx, c, SuggestAnchors, a)
}

// ImportGit implements Interface.
func (c Client) ImportGit(ctx context.Context, a ImportGitArgs) (ImportGitResult, error) {
	return call(ctx, c, ImportGit, a)
}

// Relate implements Interface.
func (c Client) Relate(ctx context.Context, a RelateArgs) (RelateResult, error) {
	return call(ctx, c, Relate, a)
}

// Why implements Interface.
func (c Client) Why(ctx context.Context, a WhyArgs) (WhyResult, error) {
	return call(ctx, c, Why, a)
}

// Flag implements Interface.
func (c Client) Flag(ctx context.Context, a FlagArgs) (memory.View, error) {
	return call(ctx, c, Flag, a)
}

// Review implements Interface.
func (c Client) Review(ctx context.Context, a ReviewArgs) (ReviewResult, error) {
	return call(ctx, c, Review, a)
}

// Prune implements Interface.
func (c Client) Prune(ctx context.Context, a PruneArgs) (PruneResult, error) {
	return call(ctx, c, Prune, a)
}

// VerifyAll implements Interface.
func (c Client) VerifyAll(ctx context.Context, a VerifyAllArgs) (VerifyAllResult, error) {
	return call(ctx, c, VerifyAll, a)
}
