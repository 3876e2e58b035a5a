package index

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenStoreReadOnly checks that a read-only opening refuses a
// directory without a store, reads what the last process left in its
// write-ahead log (no flush at close), refuses writes, and leaves the
// store for a writable opening.
func TestOpenStoreReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pebble")
	if _, err := OpenStoreReadOnly(dir); err == nil {
		t.Fatal("read-only opening of a missing store succeeded")
	}
	st, err := OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := time.Unix(1700000000, 0).UTC()
	if err := st.AddAccess(map[string]AccessStat{"m1": {Count: 2, Last: last}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenStoreReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ro.Access("m1"); err != nil || got.Count != 2 || !got.Last.Equal(last) {
		t.Fatalf("read-only access of m1: %+v, %v", got, err)
	}
	if err := ro.AddAccess(map[string]AccessStat{"m1": {Count: 1, Last: last}}); err == nil {
		t.Fatal("a write to a read-only store succeeded")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	rw, err := OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if got, _ := rw.Access("m1"); got.Count != 2 {
		t.Fatalf("after reopening for writing: count %d, want 2", got.Count)
	}
}

// TestCloseFlushesLargeWAL checks that closing a writable store whose
// write-ahead log holds more than CloseFlushWAL bytes flushes it to a
// table, so that a read-only opening has nothing to replay and still reads
// every write, and that a small log (one remember's writes) is left to be
// replayed.
func TestCloseFlushesLargeWAL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int // accesses written, about 60 bytes each
		flushed bool
	}{{"small log", 10, false}, {"large log", 4000, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pebble")
			st, err := OpenStore(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			last := time.Unix(1700000000, 0).UTC()
			stats := map[string]AccessStat{}
			for i := range tc.n {
				stats[fmt.Sprintf("memory-%06d", i)] = AccessStat{Count: int64(i + 1), Last: last}
			}
			if err := st.AddAccess(stats); err != nil {
				t.Fatal(err)
			}
			if big := st.pdb().Metrics().WAL.Size > CloseFlushWAL; big != tc.flushed {
				t.Fatalf("log of %d bytes before the close: over CloseFlushWAL %v, want %v", st.pdb().Metrics().WAL.Size, big, tc.flushed)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			ro, err := OpenStoreReadOnly(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			// A flushed log is a table now; an unflushed one is replayed
			// into the read-only store's memtable and made no table.
			tables := int64(0)
			for _, l := range ro.pdb().Metrics().Levels {
				tables += l.TablesCount
			}
			if flushed := tables > 0; flushed != tc.flushed {
				t.Fatalf("%d tables after the close: flushed %v, want %v", tables, flushed, tc.flushed)
			}
			for _, id := range []string{"memory-000000", fmt.Sprintf("memory-%06d", tc.n-1)} {
				if got, err := ro.Access(id); err != nil || got.Count != stats[id].Count {
					t.Fatalf("read-only access of %s: %+v, %v; want count %d", id, got, err, stats[id].Count)
				}
			}
		})
	}
}
