package index

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestStoreSeparatesValues checks that a store opened for writing keeps
// values of valueSeparationMin bytes or more in blob files once flushed,
// keeps smaller ones in its tables, and reads both back after a flush, a
// full compaction and a read-only opening.
func TestStoreSeparatesValues(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pebble")
	st, err := OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	b := st.pdb().NewBatch()
	for i := range 200 {
		size := valueSeparationMin - 1 // odd keys: just under the minimum
		if i%2 == 0 {
			size = 4 * valueSeparationMin
		}
		k, v := fmt.Sprintf("test\x00%04d", i), bytes.Repeat([]byte{byte('a' + i%26)}, size)
		want[k] = v
		if err := b.Set([]byte(k), v, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(b, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	check := func(s *Store, when string) { t.Helper(); storeHolds(t, s, want, when) }
	if err := st.pdb().Flush(); err != nil {
		t.Fatal(err)
	}
	m := st.pdb().Metrics()
	if m.BlobFiles.LiveCount == 0 {
		t.Fatal("no blob file after a flush of 100 values of 2 KiB")
	}
	// The 100 large values are in blob files, the 100 small ones not.
	if lo, hi := uint64(100*4*valueSeparationMin), uint64(100*(4*valueSeparationMin+valueSeparationMin-1)); m.BlobFiles.ValueSize < lo || m.BlobFiles.ValueSize >= hi {
		t.Fatalf("blob files hold %d bytes of values, want the large values' %d", m.BlobFiles.ValueSize, lo)
	}
	check(st, "after the flush")
	if err := st.pdb().Compact(t.Context(), []byte("a"), []byte("zz"), true); err != nil {
		t.Fatal(err)
	}
	check(st, "after a compaction")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenStoreReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	check(ro, "read-only")
}

// TestStoreFormatUpgrade checks that a store written in the format gloss
// made before value separation (Pebble's FormatFlushableIngest) is
// ratcheted to storeFormat by a writable opening with its records intact,
// and is read by a read-only opening before and after.
func TestStoreFormatUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pebble")
	db, err := pebble.Open(dir, &pebble.Options{FormatMajorVersion: pebble.FormatFlushableIngest, Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 3000)
	if err := db.Set(Key(prefixMeta, "schema"), []byte(fmt.Sprint(SchemaVersion)), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("test\x00big"), big, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(s *Store, when string) {
		t.Helper()
		storeHolds(t, s, map[string][]byte{"test\x00big": big}, when)
	}
	ro, err := OpenStoreReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	read(ro, "read-only, old format")
	_ = ro.Close()
	st, err := OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := st.pdb().FormatMajorVersion(); v != storeFormat {
		t.Fatalf("format %v after a writable opening, want %v", v, storeFormat)
	}
	read(st, "after the upgrade")
	// A compaction moves the old table's value to a blob file.
	if err := st.pdb().Compact(t.Context(), []byte("a"), []byte("zz"), true); err != nil {
		t.Fatal(err)
	}
	read(st, "after a compaction")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err = OpenStoreReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	read(ro, "read-only, new format")
}

// storeHolds fails t unless s holds each value of want under its key.
func storeHolds(t *testing.T, s *Store, want map[string][]byte, when string) {
	t.Helper()
	for k, v := range want {
		got, closer, err := s.pdb().Get([]byte(k))
		if err != nil {
			t.Fatalf("%s: get %q: %v", when, k, err)
		}
		if !bytes.Equal(got, v) {
			t.Fatalf("%s: %q has %d bytes, want %d", when, k, len(got), len(v))
		}
		_ = closer.Close()
	}
}
