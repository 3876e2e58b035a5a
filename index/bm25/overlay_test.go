package bm25

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gloss-dev/gloss/internal/idhash"
)

// An Overlay finds the saved documents its writes replace or delete by
// the hash of their ids, checked against the saved id: with a hash of
// four values (most ids sharing one) it counts, searches and saves as the
// saved index loaded with the same writes, as with the real hash. Writes
// replace and delete saved documents, delete unknown ids and ids that
// share a hash with a saved one.
func TestOverlaySharedIDHashes(t *testing.T) {
	x, qs := savedFixture(t)
	base := filepath.Join(t.TempDir(), "base.bm25")
	if _, err := x.WriteSaved(base, []byte("tag")); err != nil {
		t.Fatal(err)
	}
	weak := func(id string) uint64 { return uint64(len(id)+int(id[len(id)-1])) % 4 }
	for _, hashes := range []string{"maphash", "weak"} {
		if hashes == "weak" {
			defer func(f func(int) *idhash.Map) { newIDMap = f }(newIDMap)
			newIDMap = func(n int) *idhash.Map { return idhash.NewHash(n, weak) }
		}
		s, loaded, o := openOverlay(t, base)
		if hashes == "weak" && o.num.Shared() == 0 {
			t.Fatal("no id shares a hash")
		}
		rng := rand.New(rand.NewSource(9))
		z := rand.NewZipf(rng, 1.1, 1, 299)
		for w := range 4 {
			docs := map[string][]Field{}
			var deleted []string
			for range 150 {
				switch id := fmt.Sprintf("d%04d", rng.Intn(3300)); rng.Intn(4) {
				case 0:
					deleted = append(deleted, id, "unknown"+id)
				default:
					docs[id] = zipfDoc(z, rng)
				}
			}
			loaded.Apply(docs, deleted)
			o.Apply(docs, deleted)
			if o.Compacts() {
				t.Fatalf("%s: write %d compacts", hashes, w)
			}
			if o.Len() != loaded.Len() {
				t.Fatalf("%s: write %d: overlay %d documents, loaded %d", hashes, w, o.Len(), loaded.Len())
			}
		}
		for i, q := range qs[:50] {
			got, err := o.Search(q, 10, true)
			if err != nil {
				t.Fatal(err)
			}
			if want := loaded.Search(q, 10, true); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: query %d: overlay %v, loaded %v", hashes, i, got, want)
			}
		}
		if d := savesAlike(t, loaded, o); d != "" {
			t.Fatalf("%s: %s", hashes, d)
		}
		s.Close()
	}
}

// An Overlay saves as the loaded index does when its writes' terms fall
// everywhere in the saved dictionary's order: before its first term,
// between terms, at the first and last terms of its 64-term blocks, and
// after its last term, in one field and in a field the base lacks
// (overlaySource reads the dictionary a block at a time).
func TestOverlayWriteSavedInterleaves(t *testing.T) {
	x := New()
	docs := map[string][]Field{}
	for i := range 400 { // terms t0000, t0002, … in blocks of 64
		docs[fmt.Sprintf("d%03d", i)] = []Field{FieldOf("body", 2, map[string]int{fmt.Sprintf("t%04d", 2*i): 1, "common": 1})}
	}
	x.Apply(docs, nil)
	base := filepath.Join(t.TempDir(), "base.bm25")
	if _, err := x.WriteSaved(base, []byte("tag")); err != nil {
		t.Fatal(err)
	}
	s, loaded, o := openOverlay(t, base)
	defer s.Close()
	writes := map[string][]Field{}
	for i, term := range []string{"a", "t0000", "t0001", "t0126", "t0127", "t0128", "t0129", "t0255", "t0256", "t0798", "t0799", "zzz"} {
		writes[fmt.Sprintf("w%02d", i)] = []Field{
			FieldOf("body", 3, map[string]int{term: 2, "common": 1}),
			FieldOf("title", 1, map[string]int{term: 1}),
		}
	}
	loaded.Apply(writes, []string{"d005"})
	o.Apply(writes, []string{"d005"})
	if d := savesAlike(t, loaded, o); d != "" {
		t.Fatal(d)
	}
}

// openOverlay opens the saved index base, loads it, and lays an empty
// overlay over it; the caller closes s.
func openOverlay(t *testing.T, base string) (s *Saved, loaded *Index, o *Overlay) {
	t.Helper()
	s, err := OpenSaved(base)
	if err != nil {
		t.Fatal(err)
	}
	if loaded, err = s.Load(); err == nil {
		o, err = s.NewOverlay()
	}
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	return s, loaded, o
}

// savesAlike saves loaded and o with the same tag and returns "" when
// the files are the same bytes (and not empty), else what differs.
func savesAlike(t *testing.T, loaded *Index, o *Overlay) string {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if _, err := loaded.WriteSaved(a, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if _, err := o.WriteSaved(b, []byte("new")); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		return fmt.Sprintf("the overlay saves %d bytes, the loaded index %d, not the same", len(db), len(da))
	}
	return ""
}

// An Overlay whose writes delete no saved document copies the postings
// regions of the terms they do not touch as they are (the raw path of
// overlaySource.postings): the file is still the loaded index's, byte
// for byte, and a region damaged in the base stays damaged under its old
// CRC-32 in the merged file, so that a search of its term there reports
// ErrSavedCorrupt while the other terms answer.
func TestOverlayWriteSavedCopiesRegions(t *testing.T) {
	x := New()
	docs := map[string][]Field{}
	for i := range 400 {
		docs[fmt.Sprintf("d%03d", i)] = []Field{FieldOf("body", 2, map[string]int{fmt.Sprintf("t%04d", i%50): 1, "common": 1})}
	}
	x.Apply(docs, nil)
	base := filepath.Join(t.TempDir(), "base.bm25")
	if _, err := x.WriteSaved(base, []byte("tag")); err != nil {
		t.Fatal(err)
	}
	writes := map[string][]Field{
		"w1": {FieldOf("body", 2, map[string]int{"t0001": 1, "common": 1})},
		"w2": {FieldOf("body", 1, map[string]int{"fresh": 1})},
	}
	s, loaded, o := openOverlay(t, base)
	loaded.Apply(writes, nil)
	o.Apply(writes, nil)
	if d := savesAlike(t, loaded, o); d != "" {
		s.Close()
		t.Fatal(d)
	}
	e, ok, err := s.lookup(s.fields["body"], "t0007") // not in the writes
	s.Close()
	if err != nil || !ok {
		t.Fatalf("t0007: %v %v", ok, err)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	data[e.post.off+e.post.n-1] ^= 0x40
	if err := os.WriteFile(base, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = OpenSaved(base)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o, err = s.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	o.Apply(writes, nil)
	merged := filepath.Join(t.TempDir(), "merged.bm25")
	if _, err := o.WriteSaved(merged, []byte("new")); err != nil {
		t.Fatal(err)
	}
	m, err := OpenSaved(merged)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if hits, err := m.Search([]Clause{{Field: "body", Term: "t0007", Weight: 1}}, 10, true); !errors.Is(err, ErrSavedCorrupt) {
		t.Fatalf("damaged t0007 in the merged file: %d hits, error %v", len(hits), err)
	}
	if hits, err := m.Search([]Clause{{Field: "body", Term: "t0001", Weight: 1}}, 10, true); err != nil || len(hits) != 9 {
		t.Fatalf("t0001 in the merged file: %d hits, error %v; want 9", len(hits), err)
	}
}
