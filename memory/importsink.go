package memory

import (
	"encoding/json"
	"errors"
)

// This file is the surface package memory/importgit writes through: it
// builds memories from git history outside this package and stores them
// here, under the workspace's write lock, with anchors resolved and
// derived indexes updated like every other write.

// SourceImportedGit is the source of the memories imported from git
// history (package memory/importgit). They describe the code of their
// commit, so a stale one is expected history, not a problem: no
// diagnostics, no GitHub annotation, and `gloss check --exit-code` does not
// fail on them (api.CheckResult.StaleImported).
const SourceImportedGit = "imported_git"

// ImportSink stores memories built by an importer (memory/importgit) in
// batches. It keeps one anchor resolver for its whole life, so the
// index's file records and the parses it reads are shared by all
// batches: make it after the workspace is indexed (Index) and Close it
// when done. Not safe for concurrent use.
type ImportSink struct {
	w *Workspace
	r *resolver
}

// NewImportSink returns a sink writing into w; the error is the store's
// (reading its generation and file records).
func (w *Workspace) NewImportSink() (*ImportSink, error) {
	r, err := w.newResolver()
	if err != nil {
		return nil, err
	}
	return &ImportSink{w: w, r: r}, nil
}

// Put resolves the anchors of mems against the working tree (each anchor
// as made right after its commit: status fresh, or re-resolved when its
// file differs) and stores them in one durable batch, leaving out a
// memory whose id is already stored. It returns the memories stored, in
// order; on error nothing of the batch is stored.
func (s *ImportSink) Put(mems []*Memory) ([]*Memory, error) {
	if len(mems) == 0 {
		return nil, nil
	}
	w := s.w
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	b := w.Store.NewMemoryBatch()
	var stored []*Memory
	for _, m := range mems {
		if _, err := w.Store.Memory(m.ID); err == nil {
			continue
		}
		for i := range m.Anchors {
			if s.r.needs(&m.Anchors[i]) {
				m.Anchors[i] = s.r.resolve(m.Anchors[i])
			}
		}
		if err := w.putMemory(b, nil, m); err != nil {
			b.Close()
			return nil, err
		}
		stored = append(stored, m)
	}
	if len(stored) == 0 {
		b.Close()
		return nil, nil
	}
	if err := w.commit(b, stored, nil); err != nil {
		return nil, err
	}
	return stored, nil
}

// Close releases the parses the sink's resolver holds.
func (s *ImportSink) Close() { s.r.release() }

// SetImportMark durably records mark, an importer's opaque description of
// the range of history it examined on branch (index.Store.ImportMark
// reads it back), under the workspace's write lock.
func (w *Workspace) SetImportMark(branch, mark string) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	b := w.Store.NewMemoryBatch()
	if err := b.SetImportMark(branch, mark); err != nil {
		b.Close()
		return err
	}
	return w.commit(b, nil, nil)
}

// importedKey is what identifies the commit of an imported memory
// across rewrites: its author and author date, with the commit hash.
type importedKey struct {
	Source    string `json:"source"`
	Author    string `json:"author,omitempty"`
	GitCommit string `json:"git_commit,omitempty"`
}

// errFound stops a scan of HasImported.
var errFound = errors.New("found")

// HasImported reports whether a memory of source SourceImportedGit whose
// id starts with idPrefix (ULIDs of the same millisecond share their
// first 10 characters) has a commit for which match(author, gitCommit)
// is true; with forgotten, it looks among the tombstones of forgotten
// memories instead (those of imported memories are kept for good,
// reduced: keepImportTombstone). Memories without a commit are left out.
func (w *Workspace) HasImported(idPrefix string, forgotten bool, match func(author, gitCommit string) bool) bool {
	same := func(data []byte) bool {
		var k importedKey
		return json.Unmarshal(data, &k) == nil && k.Source == SourceImportedGit && k.GitCommit != "" && match(k.Author, k.GitCommit)
	}
	if !forgotten {
		return w.Store.MemoriesWithIDPrefix(idPrefix, func(_ string, data []byte) error {
			if same(data) {
				return errFound
			}
			return nil
		}) == errFound
	}
	return w.Store.TombstonesWithIDPrefix(idPrefix, func(_ string, data []byte) error {
		var t tombstone
		if json.Unmarshal(data, &t) == nil && same(t.Memory) {
			return errFound
		}
		return nil
	}) == errFound
}

// keepImportTombstone returns the tombstone to keep in place of an
// expired one (data) when its memory was imported from git: the memory
// reduced to what HasImported reads, so that no later import brings it
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
