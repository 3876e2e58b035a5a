package index

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenStoreCacheKeepsSizeOnReopen opens a store with a small block
// cache, writes through it, reopens it (as after a write failure) and
// reads the write back: the size is kept, and 0 means StoreCacheBytes.
func TestOpenStoreCacheKeepsSizeOnReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := OpenStoreCache(dir, nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if s.cacheBytes != 1<<20 {
		t.Fatalf("cacheBytes = %d, want %d", s.cacheBytes, 1<<20)
	}
	b := s.NewMemoryBatch()
	if err := b.Put("m1", []byte(`{"id":"m1"}`), []string{"a.go"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.Reopen(); err != nil {
		t.Fatal(err)
	}
	if s.cacheBytes != 1<<20 {
		t.Fatalf("after Reopen cacheBytes = %d, want %d", s.cacheBytes, 1<<20)
	}
	ids, err := s.MemoryIDsAt("a.go")
	if err != nil || len(ids) != 1 || ids[0] != "m1" {
		t.Fatalf("MemoryIDsAt after Reopen = %v, %v; want [m1]", ids, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = OpenStoreCache(dir, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.cacheBytes != StoreCacheBytes {
		t.Fatalf("cacheBytes = %d, want StoreCacheBytes", s.cacheBytes)
	}
}

// l0Sublevels returns how many sublevels level 0 of the store has: one per
// flush whose keys overlap the earlier flushes' (a flush writes a table per
// keyspace, keyspaceSpans), which is what Pebble compares to
// L0CompactionThreshold.
func l0Sublevels(s *Store) int { return int(s.pdb().Metrics().Levels[0].Sublevels) }

// TestOpenStoreBulkSpacesL0Compactions flushes six small memory writes to
// six level-0 sublevels, in a store opened with OpenStoreBulk (and reopened,
// as after a write failure: the options are kept) and in one opened with
// OpenStoreCache: the bulk store keeps the six sublevels (no compaction
// before 16), the default one compacts level 0 (Pebble's threshold, 4),
// which the test waits for. Every write is readable in both.
func TestOpenStoreBulkSpacesL0Compactions(t *testing.T) {
	for _, bulk := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "store")
		open := OpenStoreCache
		if bulk {
			open = OpenStoreBulk
		}
		s, err := open(dir, nil, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Reopen(); err != nil {
			t.Fatal(err)
		}
		if s.bulk != bulk {
			t.Fatalf("after Reopen bulk = %v, want %v", s.bulk, bulk)
		}
		before := l0Sublevels(s)
		const writes = 6
		for i := range writes {
			id := fmt.Sprintf("m%d", i)
			b := s.NewMemoryBatch()
			if err := b.Put(id, []byte(`{"id":"`+id+`"}`), []string{"a.go"}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := s.pdb().Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if bulk {
			if n := l0Sublevels(s); n < writes {
				t.Errorf("bulk store: %d level-0 sublevels after %d flushes (from %d), want every one kept", n, writes, before)
			}
		} else {
			deadline := time.Now().Add(60 * time.Second)
			for l0Sublevels(s) >= 4 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := l0Sublevels(s); n >= 4 {
				t.Errorf("default store: %d level-0 sublevels a minute after %d flushes, want them compacted", n, writes)
			}
		}
		ids, err := s.MemoryIDsAt("a.go")
		if err != nil || len(ids) != writes {
			t.Errorf("bulk=%v: MemoryIDsAt = %v, %v; want %d ids", bulk, ids, err, writes)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
