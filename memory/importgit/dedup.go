package importgit

import (
	"context"
	"sync"
)

// Skip reasons of Run for commits imported before in another form.
const (
	// SkipForgotten: the commit's memory was forgotten (memory.Workspace.Forget); an
	// import never brings it back, even after the restore window
	// (forgotten imported memories keep a small tombstone for good).
	SkipForgotten = "forgotten"
	// SkipRewritten: the commit rewrites one imported before — an amend,
	// rebase or cherry-pick keeps the author and the author date, so a
	// commit with the author and author date (to the second) of an
	// imported memory whose commit is no longer in the walked history is
	// the same change under a new hash (git-rebase(1) and git-commit(1)
	// keep the author date; `--reset-author` does not, and its commit is
	// imported anew).
	SkipRewritten = "rewritten"
)

// liveCommits answers whether a commit is in the history being walked:
// one of the planned commits or an ancestor of the head (memoized; one
// `git merge-base --is-ancestor` per commit asked, which happens only for
// commits sharing an author date with an imported one).
type liveCommits struct {
	mu      sync.Mutex
	ctx     context.Context
	root    string
	head    string
	planned map[string]bool
	known   map[string]bool
}

func newLiveCommits(ctx context.Context, root string, p *importPlan) *liveCommits {
	l := &liveCommits{ctx: ctx, root: root, head: p.head, planned: map[string]bool{}, known: map[string]bool{}}
	for _, c := range p.commits() {
		l.planned[c.hash] = true
	}
	return l
}

func (l *liveCommits) has(commit string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.planned[commit] {
		return true
	}
	live, ok := l.known[commit]
	if !ok {
		live = isAncestor(l.ctx, l.root, commit, l.head)
		l.known[commit] = live
	}
	return live
}

// priorImport returns the skip reason of a commit imported before
// (SkipImported, SkipForgotten, SkipRewritten), or "": its memory id
// exists or was forgotten, or a memory or tombstone of the same author
// and author date names a commit that is no longer in the history
// (memory.Workspace.HasImported).
func (im *importer) priorImport(c *gitCommit) string {
	id, err := commitMemoryID(c.Hash, c.Time)
	if err != nil {
		return ""
	}
	if _, err := im.w.Store.Memory(id); err == nil {
		return SkipImported
	}
	if _, err := im.w.Store.Tombstone(id); err == nil {
		return SkipForgotten
	}
	same := func(author, commit string) bool {
		return author == c.Author && commit != c.Hash && !im.live.has(commit)
	}
	// ULIDs of the same millisecond share their first 10 characters.
	switch {
	case im.w.HasImported(id[:10], false, same):
		return SkipRewritten
	case im.w.HasImported(id[:10], true, same):
		return SkipForgotten
	}
	return ""
}
