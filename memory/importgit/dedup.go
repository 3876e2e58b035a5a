package memory

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// Skip reasons of ImportGit for commits imported before in another form.
const (
	// SkipForgotten: the commit's memory was forgotten (Forget); an
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

// importedKey is what identifies the commit of an imported memory
// across rewrites: its author and author date, with the commit hash.
type importedKey struct {
	Source    string `json:"source"`
	Author    string `json:"author,omitempty"`
	GitCommit string `json:"git_commit,omitempty"`
}

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
// and author date names a commit that is no longer in the history.
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
	// ULIDs of the same millisecond share their first 10 characters.
	same := func(data []byte) bool {
		var k importedKey
		return json.Unmarshal(data, &k) == nil && k.Source == SourceImportedGit && k.Author == c.Author &&
			k.GitCommit != "" && k.GitCommit != c.Hash && !im.live.has(k.GitCommit)
	}
	reason := ""
	errFound := errors.New("found")
	if im.w.Store.MemoriesWithIDPrefix(id[:10], func(_ string, data []byte) error {
		if same(data) {
			return errFound
		}
		return nil
	}) == errFound {
		reason = SkipRewritten
	}
	if reason == "" && im.w.Store.TombstonesWithIDPrefix(id[:10], func(_ string, data []byte) error {
		var t tombstone
		if json.Unmarshal(data, &t) == nil && same(t.Memory) {
			return errFound
		}
		return nil
	}) == errFound {
		reason = SkipForgotten
	}
	return reason
}

// keepImportTombstone returns the tombstone to keep in place of an
// expired one (data) when its memory was imported from git: the memory
// reduced to what priorImport reads, so that no later import brings it
// back; nil for other memories (the tombstone is dropped).
func keepImportTombstone(data []byte) []byte {
	var t tombstone
	var k importedKey
	if json.Unmarshal(data, &t) != nil || json.Unmarshal(t.Memory, &k) != nil || k.Source != SourceImportedGit {
		return nil
	}
	if len(t.Memory) <= 256 {
		return data // already reduced
	}
	small, err := json.Marshal(k)
	if err != nil {
		return nil
	}
	out, err := json.Marshal(tombstone{ForgottenAt: t.ForgottenAt, Memory: small})
	if err != nil {
		return nil
	}
	return out
}
