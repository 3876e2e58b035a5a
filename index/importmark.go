package index

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The git-import keyspace: the last commit `gloss import-git` examined on
// each branch, so that the next run walks only newer commits (package
// memory/importgit, Run):
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

// MemoriesWithIDPrefix calls fn with every memory record whose id starts
// with idPrefix, in id order (a range scan: ULIDs sharing their first 10
// characters were created in the same millisecond); data is only valid
// during the call. An error from fn stops the scan and is returned.
func (s *Store) MemoriesWithIDPrefix(idPrefix string, fn func(id string, data []byte) error) error {
	return scanIDPrefix(s, prefixMemory, idPrefix, fn)
}

// TombstonesWithIDPrefix is MemoriesWithIDPrefix over the tombstones of
// forgotten memories.
func (s *Store) TombstonesWithIDPrefix(idPrefix string, fn func(id string, data []byte) error) error {
	return scanIDPrefix(s, prefixForgotten, idPrefix, fn)
}

func scanIDPrefix(s *Store, prefix, idPrefix string, fn func(id string, data []byte) error) (err error) {
	defer Recover(s.dir, "read store", &err)
	lo := Key(prefix, idPrefix)
	hi := append(Key(prefix, idPrefix), 0xff)
	it, err := s.pdb().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	defer closeIter(it, &err)
	for it.First(); it.Valid(); it.Next() {
		id := string(it.Key()[len(prefix)+1:])
		if err := fn(id, it.Value()); err != nil {
			return err
		}
	}
	return nil
}
