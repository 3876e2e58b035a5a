package index

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

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
// is visible or durable until Commit. Close it when not committed. Batches
// must be committed one at a time (package memory serializes its writes):
// each commit advances the memory generation by one.
type MemoryBatch struct {
	s *Store
	b *pebble.Batch
	// rebuilt: the batch rebuilt every memory summary (summaries.go).
	rebuilt bool
}

// NewMemoryBatch starts a batch of memory record writes.
func (s *Store) NewMemoryBatch() *MemoryBatch { return &MemoryBatch{s: s, b: s.pdb().NewBatch()} }

// NewMemoryBatchSize starts a batch of memory record writes whose buffer
// holds size bytes of encoded writes before it grows (pebble
// DB.NewBatchWithSize; size ≤ 0 is NewMemoryBatch): a writer that knows
// about how much it writes, such as the chunks of memory.RememberBatch,
// allocates the buffer once instead of doubling it up to that size.
func (s *Store) NewMemoryBatchSize(size int) *MemoryBatch {
	if size <= 0 {
		return s.NewMemoryBatch()
	}
	return &MemoryBatch{s: s, b: s.pdb().NewBatchWithSize(size)}
}

// Len returns the bytes of encoded writes in the batch so far (pebble
// Batch.Len: keys, values and record headers).
func (b *MemoryBatch) Len() int { return b.b.Len() }

// MemoryGeneration returns the memory generation: a counter advanced by
// one per committed memory batch from a random start (nextGeneration); 0
// for a store with no batch yet or written before it was counted. Derived indexes record the generation they reflect, so that
// opening one compares two numbers instead of reading every memory.
func (s *Store) MemoryGeneration() (gen uint64, err error) {
	defer Recover(s.dir, "read memory generation", &err)
	val, closer, err := s.pdb().Get(Key(prefixMeta, "memgen"))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read memory generation: %w", err)
	}
	defer closer.Close()
	return strconv.ParseUint(string(val), 10, 64)
}

// MemoryCount returns the number of memory records. When every memory
// has a summary (SummariesCurrent: a summary is put and deleted with each
// record) it counts the summary keys, whose values are a few hundred
// bytes, instead of the records, whose values are kilobytes (snapshots,
// tokens): Pebble reads the values' blocks either way, and counting
// 100,000 records took about a second (pprof of `remember --batch`,
// docs/benchmarks.md "Scale (#12)").
func (s *Store) MemoryCount() (n int, err error) {
	defer Recover(s.dir, "count memories", &err)
	prefix := prefixMemory
	if ok, err := s.SummariesCurrent(); err != nil {
		return 0, err
	} else if ok {
		prefix = prefixSummary
	}
	lo, hi := PrefixBounds(prefix)
	it, err := s.pdb().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return 0, err
	}
	defer closeIter(it, &err)
	for it.First(); it.Valid(); it.Next() {
		n++
	}
	return n, it.Error()
}

// Put stores the record data of memory id with an anchor in each of paths,
// replacing the path entries oldPaths of its previous version (nil for a
// new record).
func (b *MemoryBatch) Put(id string, data []byte, paths, oldPaths []string) error {
	if err := b.invalidate(oldPaths); err != nil {
		return err
	}
	if err := b.invalidate(paths); err != nil {
		return err
	}
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

// Delete removes memory id, its summary and its path entries paths.
func (b *MemoryBatch) Delete(id string, paths []string) error {
	if err := b.invalidate(paths); err != nil {
		return err
	}
	if err := b.b.Delete(Key(prefixSummary, id), nil); err != nil {
		return err
	}
	for _, p := range paths {
		if err := b.b.Delete(Key(prefixAnchor, p, id), nil); err != nil {
			return err
		}
	}
	return b.b.Delete(Key(prefixMemory, id), nil)
}

// Commit writes the batch durably (fsync of the write-ahead log) before
// returning, and closes it: an acknowledged write survives a crash. On
// error nothing of the batch is applied. It returns the memory generation
// the batch made.
func (b *MemoryBatch) Commit() (uint64, error) {
	defer b.b.Close()
	gen, err := b.s.MemoryGeneration()
	if err != nil {
		return 0, err
	}
	gen = nextGeneration(gen)
	if err := b.b.Set(Key(prefixMeta, "memgen"), []byte(strconv.FormatUint(gen, 10)), nil); err != nil {
		return 0, err
	}
	if err := b.commitSummaryGen(gen); err != nil {
		return 0, err
	}
	if err := b.s.Commit(b.b, pebble.Sync); err != nil {
		return 0, fmt.Errorf("write store: %w", err)
	}
	return gen, nil
}

// Renew moves the batch's writes to a new batch of the store's current
// database (after Reopen replaced the one the batch was started on).
func (b *MemoryBatch) Renew() error {
	nb := b.s.pdb().NewBatch()
	if err := nb.Apply(b.b, nil); err != nil {
		nb.Close()
		return err
	}
	_ = b.b.Close()
	b.b = nb
	return nil
}

// Close discards an uncommitted batch.
func (b *MemoryBatch) Close() { _ = b.b.Close() }

// Memory returns a copy of the record of memory id, or an error wrapping
// ErrNotFound.
func (s *Store) Memory(id string) (data []byte, err error) {
	defer Recover(s.dir, "read memory "+id, &err)
	val, closer, err := s.pdb().Get(Key(prefixMemory, id))
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
	return Scan(s.pdb(), func(rest []string, val []byte) error { return fn(rest[0], val) }, prefixMemory)
}

// MemoryIDsAt returns the ids of the memories with an anchor in the
// workspace-relative path, in id order.
func (s *Store) MemoryIDsAt(path string) ([]string, error) {
	var ids []string
	err := Scan(s.pdb(), func(rest []string, _ []byte) error {
		ids = append(ids, rest[0])
		return nil
	}, prefixAnchor, path)
	return ids, err
}

// Flush writes the store's memtables to tables on disk (tests of table
// corruption use it; writes are durable without it, through the WAL).
func (s *Store) Flush() (err error) {
	defer Recover(s.dir, "flush store", &err)
	return s.pdb().Flush()
}

// MemoryIDsInDir returns the ids of the memories with an anchor in a file
// directly inside the workspace-relative directory dir ("." for the
// root), in path then id order.
func (s *Store) MemoryIDsInDir(dir string) ([]string, error) {
	var ids []string
	lo := Key(prefixAnchor, "")
	hi := append(Key(prefixAnchor, ""), 0xff)
	if dir != "." && dir != "" {
		lo = Key(prefixAnchor, dir+"/")
		hi = Key(prefixAnchor, dir+"0") // '0' follows '/'
	}
	err := scanRange(s.pdb(), lo, hi, func(k []byte) error {
		parts := bytes.SplitN(k[len(prefixAnchor)+1:], []byte{0}, 2)
		if len(parts) == 2 && !bytes.Contains(parts[0][len(lo)-len(prefixAnchor)-1:], []byte("/")) {
			ids = append(ids, string(parts[1]))
		}
		return nil
	})
	return ids, err
}

// scanRange calls fn with every key in [lo, hi).
func scanRange(db pebble.Reader, lo, hi []byte, fn func(k []byte) error) (err error) {
	defer Recover("", "read store", &err)
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	defer closeIter(it, &err)
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key()); err != nil {
			return err
		}
	}
	return it.Error()
}

// MemoryAnchorPaths calls fn with every (path, memory id) pair of the
// anchor index, in path then id order, reading keys only.
func (s *Store) MemoryAnchorPaths(fn func(path, id string) error) error {
	return Scan(s.pdb(), func(rest []string, _ []byte) error {
		if len(rest) == 2 {
			return fn(rest[0], rest[1])
		}
		return nil
	}, prefixAnchor)
}

// nextGeneration returns the memory generation after gen. A store's first
// generation is random in [2^32, 2^48) rather than 1, so that a store
// created again in the same directory (its pebble/ removed, its derived
// indexes kept) does not reach a generation an old derived index
// recorded, which would make that index look current.
func nextGeneration(gen uint64) uint64 {
	if gen == 0 {
		return 1<<32 + rand.Uint64N(1<<48-1<<32)
	}
	return gen + 1
}

// HasMemories reports whether the store holds any memory record (the
// first key of the m keyspace).
func (s *Store) HasMemories() (ok bool, err error) {
	defer Recover(s.dir, "read memories", &err)
	lo, hi := PrefixBounds(prefixMemory)
	it, err := s.pdb().NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return false, err
	}
	defer closeIter(it, &err)
	return it.First(), it.Error()
}
