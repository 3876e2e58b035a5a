package index

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The forgotten-memory keyspace (package memory: Forget, Restore): the
// records of forgotten memories, kept for a while so that a forget can be
// undone, apart from the memory keyspace so that no listing, lookup or
// path index sees them:
//
//	t\0<id>  → the tombstone (package memory's encoding)
const prefixForgotten = "t"

// Tombstone removes memory id (its record and path entries paths) from the
// memory keyspace and keeps data, its tombstone, in the forgotten
// keyspace.
func (b *MemoryBatch) Tombstone(id string, data []byte, paths []string) error {
	if err := b.Delete(id, paths); err != nil {
		return err
	}
	return b.b.Set(Key(prefixForgotten, id), data, nil)
}

// DropTombstone removes the tombstone of memory id, if any.
func (b *MemoryBatch) DropTombstone(id string) error {
	return b.b.Delete(Key(prefixForgotten, id), nil)
}

// Tombstone returns a copy of the tombstone of memory id, or an error
// wrapping ErrNotFound.
func (s *Store) Tombstone(id string) ([]byte, error) {
	val, closer, err := s.pdb().Get(Key(prefixForgotten, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, fmt.Errorf("forgotten memory %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read forgotten memory %s: %w", id, err)
	}
	defer closer.Close()
	return append([]byte(nil), val...), nil
}

// Tombstones calls fn with the id and tombstone of every forgotten memory,
// in id order. An error from fn stops the scan and is returned.
func (s *Store) Tombstones(fn func(id string, data []byte) error) error {
	return Scan(s.pdb(), func(rest []string, val []byte) error { return fn(rest[0], val) }, prefixForgotten)
}
