package index

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The git-import keyspace: the last commit `gloss import-git` examined on
// each branch, so that the next run walks only newer commits (package
// memory, ImportGit):
//
//	x\0<branch>  → commit hash
const prefixImportMark = "x"

// SetImportMark records commit as the last commit imported on branch, in
// the batch (so it is durable together with the memories it covers).
func (b *MemoryBatch) SetImportMark(branch, commit string) error {
	return b.b.Set(Key(prefixImportMark, branch), []byte(commit), nil)
}

// ImportMark returns the last commit imported on branch, "" when none.
func (s *Store) ImportMark(branch string) (commit string, err error) {
	defer Recover(s.dir, "read import mark", &err)
	val, closer, err := s.pdb().Get(Key(prefixImportMark, branch))
	if errors.Is(err, pebble.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read import mark of %s: %w", branch, err)
	}
	defer closer.Close()
	return string(val), nil
}
