package index

import (
	"path/filepath"
	"testing"
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
