package index

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The memory keyspace, whose records package memory encodes (JSON) and
// this package stores:
//
//	m\0<id>          → the record
//	a\0<path>\0<id>  → "" (which records have an anchor in path)
const (
	prefixMemory = "m"
	prefixAnchor = "a"
)

// ErrNotFound is returned (wrapped) for a record that is not stored.
var ErrNotFound = errors.New("not found")

// MemoryBatch is an atomic group of memory record writes; nothing of it
// is visible or durable until Commit. Close it when not committed.
type MemoryBatch struct{ b *pebble.Batch }

// NewMemoryBatch starts a batch of memory record writes.
func (s *Store) NewMemoryBatch() *MemoryBatch { return &MemoryBatch{b: s.db.NewBatch()} }

// Put stores the record data of memory id with an anchor in each of paths,
// replacing the path entries oldPaths of its previous version (nil for a
// new record).
func (b *MemoryBatch) Put(id string, data []byte, paths, oldPaths []string) error {
	for _, p := range oldPaths {
		if err := b.b.Delete(Key(prefixAnchor, p, id), nil); err != nil {
			return err
		}
	}
	if err := b.b.Set(Key(prefixMemory, id), data, nil); err != nil {
		return err
	}
	for _, p := range paths {
		if err := b.b.Set(Key(prefixAnchor, p, id), nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes memory id and its path entries paths.
func (b *MemoryBatch) Delete(id string, paths []string) error {
	for _, p := range paths {
		if err := b.b.Delete(Key(prefixAnchor, p, id), nil); err != nil {
			return err
		}
	}
	return b.b.Delete(Key(prefixMemory, id), nil)
}

// Commit writes the batch durably (fsync of the write-ahead log) before
// returning, and closes it: an acknowledged write survives a crash. On
// error nothing of the batch is applied.
func (b *MemoryBatch) Commit() error {
	defer b.b.Close()
	if err := b.b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("write store: %w", err)
	}
	return nil
}

// Close discards an uncommitted batch.
func (b *MemoryBatch) Close() { _ = b.b.Close() }

// Memory returns a copy of the record of memory id, or an error wrapping
// ErrNotFound.
func (s *Store) Memory(id string) ([]byte, error) {
	val, closer, err := s.db.Get(Key(prefixMemory, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, fmt.Errorf("memory %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read memory %s: %w", id, err)
	}
	defer closer.Close()
	return append([]byte(nil), val...), nil
}

// Memories calls fn with every memory record in id order; data is only
// valid during the call. An error from fn stops the scan and is returned.
func (s *Store) Memories(fn func(id string, data []byte) error) error {
	return Scan(s.db, func(rest []string, val []byte) error { return fn(rest[0], val) }, prefixMemory)
}

// MemoryIDsAt returns the ids of the memories with an anchor in the
// workspace-relative path, in id order.
func (s *Store) MemoryIDsAt(path string) ([]string, error) {
	var ids []string
	err := Scan(s.db, func(rest []string, _ []byte) error {
		ids = append(ids, rest[0])
		return nil
	}, prefixAnchor, path)
	return ids, err
}
