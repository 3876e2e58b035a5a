package index

import (
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
