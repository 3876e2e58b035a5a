package index

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The hidden-memory keyspace: records of project memories whose Markdown
// file is gone (package memory, SyncMemoryFiles), kept apart from the
// memory keyspace so that no listing, lookup or path index sees them until
// the file returns:
//
//	h\0<id>  → the record
const prefixHidden = "h"

// Hide moves memory id out of the memory keyspace (removing its record and
// path entries paths) into the hidden keyspace with record data.
func (b *MemoryBatch) Hide(id string, data []byte, paths []string) error {
	if err := b.Delete(id, paths); err != nil {
		return err
	}
	return b.b.Set(Key(prefixHidden, id), data, nil)
}

// Unhide removes the hidden record of memory id, if any.
func (b *MemoryBatch) Unhide(id string) error {
	return b.b.Delete(Key(prefixHidden, id), nil)
}

// HiddenMemory returns a copy of the hidden record of memory id, or an
// error wrapping ErrNotFound.
func (s *Store) HiddenMemory(id string) ([]byte, error) {
	val, closer, err := s.pdb().Get(Key(prefixHidden, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, fmt.Errorf("hidden memory %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read hidden memory %s: %w", id, err)
	}
	defer closer.Close()
	return append([]byte(nil), val...), nil
}

// HiddenMemories calls fn with the id of every hidden record, in id order.
// An error from fn stops the scan and is returned.
func (s *Store) HiddenMemories(fn func(id string) error) error {
	return Scan(s.pdb(), func(rest []string, _ []byte) error { return fn(rest[0]) }, prefixHidden)
}
