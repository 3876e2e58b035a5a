package bm25

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// savedFixture returns an index of 3,000 random documents that went
// through replacements and deletions (so it holds tombstones) and random
// queries over it.
func savedFixture(t *testing.T) (*Index, [][]Clause) {
	t.Helper()
	rng := rand.New(rand.NewSource(5))
	z := rand.NewZipf(rng, 1.1, 1, 299)
	x := New()
	for range 3 {
		docs := map[string][]Field{}
		var deleted []string
		for range 1500 {
			id := fmt.Sprintf("d%04d", rng.Intn(3000))
			if rng.Intn(5) == 0 {
				deleted = append(deleted, id)
				continue
			}
			docs[id] = zipfDoc(z, rng)
		}
		x.Apply(docs, deleted)
	}
	// A last small write, which leaves its tombstones (compaction needs
	// more than 1,024).
	last := map[string][]Field{}
	for range 200 {
		last[fmt.Sprintf("d%04d", rng.Intn(3000))] = zipfDoc(z, rng)
	}
	x.Apply(last, []string{"d0001", "d0002", "d0003", "d0010", "d0100"})
	if x.dead == 0 {
		t.Fatal("fixture has no tombstone")
	}
	var qs [][]Clause
	for range 200 {
		var cl []Clause
		for range 1 + rng.Intn(6) {
			term := fmt.Sprintf("t%d", z.Uint64())
			cl = append(cl, Clause{Field: "title", Term: term, Weight: 9}, Clause{Field: "body", Term: term, Weight: 1})
		}
		cl = append(cl, Clause{Field: "title", Term: "absent", Weight: 1}, Clause{Field: "nofield", Term: "t1", Weight: 1})
		qs = append(qs, cl)
	}
	return x, qs
}

// TestSavedRoundTrip checks that a saved index has the tag, statistics
// and every term's live postings (document numbers, frequencies, field
// lengths) and upper-bound parameters of the Index it was written from,
// and that its searches return exactly that Index's hits (ids, order,
// scores to the last bit), pruned or not, for k from 1 to 40.
func TestSavedRoundTrip(t *testing.T) {
	x, qs := savedFixture(t)
	path := filepath.Join(t.TempDir(), "saved")
	n, err := x.WriteSaved(path, []byte("tag 1"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != n {
		t.Fatalf("size %d written, stat %v %v", n, st, err)
	}
	s, err := OpenSaved(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if string(s.Tag()) != "tag 1" || s.nDocs != uint64(len(x.ids)) {
		t.Fatalf("tag %q, %d documents", s.Tag(), s.nDocs)
	}
	for name, f := range x.fields {
		sf := s.fields[name]
		if sf == nil || sf.docs != uint64(f.docs) || sf.sumLen != f.sumLen {
			t.Fatalf("field %s: saved %+v, index N %d length %d", name, sf, f.docs, f.sumLen)
		}
		for term, p := range f.terms {
			e, ok, err := s.lookup(sf, term)
			if err != nil || !ok {
				t.Fatalf("%s %s: %v %v", name, term, ok, err)
			}
			docs, tfs, lens, err := s.postings(e)
			if err != nil {
				t.Fatal(err)
			}
			var wd, wt, wl []uint32
			for i, d := range p.docs {
				if x.ids[d] != "" {
					wd, wt, wl = append(wd, d), append(wt, p.tfs[i]), append(wl, f.lens[d])
				}
			}
			if e.df != uint64(x.liveDF(p)) || e.maxTF != uint64(p.maxTF) || e.minLen != uint64(p.minLen) ||
				!slices.Equal(docs, wd) || !slices.Equal(tfs, wt) || !slices.Equal(lens, wl) {
				t.Fatalf("%s %s: saved %+v %v %v %v", name, term, e, docs, tfs, lens)
			}
		}
		if _, ok, err := s.lookup(sf, "zzz-not-a-term"); ok || err != nil {
			t.Fatalf("absent term found: %v %v", ok, err)
		}
	}
	for i, cl := range qs {
		k := 1 + i%40
		for _, prune := range []bool{true, false} {
			got, err := s.Search(cl, k, prune)
			if err != nil {
				t.Fatal(err)
			}
			if want := x.Search(cl, k, prune); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("query %d k %d prune %v:\nsaved %v\nindex %v", i, k, prune, got, want)
			}
		}
	}
}

// TestSavedCorrupt checks that a flipped byte in a postings, dictionary
// or id block, or in the directory, or a truncated file, is reported as
// ErrSavedCorrupt by the search touching it (or by OpenSaved), and never
// as different hits.
func TestSavedCorrupt(t *testing.T) {
	x, _ := savedFixture(t)
	path := filepath.Join(t.TempDir(), "saved")
	if _, err := x.WriteSaved(path, []byte("t")); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSaved(path)
	if err != nil {
		t.Fatal(err)
	}
	body := s.fields["body"]
	e, _, err := s.lookup(body, "t1")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]uint64{
		"postings":   e.post.off + e.post.n/2,
		"dictionary": body.blocks[0].off + 1,
		"ids":        s.ids[0].off,
	}
	s.Close()
	q := []Clause{{Field: "body", Term: "t1", Weight: 1}, {Field: "title", Term: "t1", Weight: 2}}
	for what, off := range targets {
		bad := slices.Clone(good)
		bad[off] ^= 0x40
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := OpenSaved(path)
		if err != nil {
			t.Fatalf("%s: open: %v", what, err)
		}
		hits, err := s.Search(q, 3000, true)
		if !errors.Is(err, ErrSavedCorrupt) {
			t.Fatalf("%s corrupt: search gave %d hits, error %v", what, len(hits), err)
		}
		s.Close()
	}
	dirOff := len(good) - savedFooterLen - 10
	for what, bad := range map[string][]byte{
		"directory": func() []byte { b := slices.Clone(good); b[dirOff] ^= 1; return b }(),
		"truncated": good[:len(good)-3],
		"empty":     nil,
	} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := OpenSaved(path); !errors.Is(err, ErrSavedCorrupt) {
			if s != nil {
				s.Close()
			}
			t.Fatalf("%s: open gave %v", what, err)
		}
	}
}

// TestSavedSeek checks that a saved list's cursor, sought to increasing
// random targets (skipping blocks by their last document numbers), stops
// at the same postings as the in-memory list does: the first live
// document ≥ the target, with its frequency and field length.
func TestSavedSeek(t *testing.T) {
	x, _ := savedFixture(t)
	path := filepath.Join(t.TempDir(), "saved")
	if _, err := x.WriteSaved(path, nil); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSaved(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewSource(7))
	long := 0
	for name, f := range x.fields {
		for term, p := range f.terms {
			var wd, wt []uint32
			for i, d := range p.docs {
				if x.ids[d] != "" {
					wd, wt = append(wd, d), append(wt, p.tfs[i])
				}
			}
			if len(wd) > 2*savedPostingsPerBlock {
				long++
			}
			e, _, err := s.lookup(s.fields[name], term)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.block(e.post)
			if err != nil {
				t.Fatal(err)
			}
			l, err := s.openList(e, b)
			if err != nil {
				t.Fatal(err)
			}
			c := cursor{src: l}
			c.at(0)
			target := uint32(0)
			for c.cur != math.MaxUint32 {
				target += uint32(rng.Intn(400))
				c.seek(target)
				i := sort.Search(len(wd), func(i int) bool { return wd[i] >= target })
				if i == len(wd) {
					if c.cur != math.MaxUint32 {
						t.Fatalf("%s %s: seek %d → %d, want the end", name, term, target, c.cur)
					}
					break
				}
				if c.cur != wd[i] || c.tfs[c.i] != wt[i] || c.plens[c.i] != f.lens[wd[i]] {
					t.Fatalf("%s %s: seek %d → %d tf %d, want %d tf %d", name, term, target, c.cur, c.tfs[c.i], wd[i], wt[i])
				}
			}
			if l.err != nil {
				t.Fatal(l.err)
			}
		}
	}
	if long == 0 {
		t.Fatal("no list spans more than two blocks")
	}
}

// TestSavedFormatGolden pins the bytes of the saved form (the SHA-256 of
// savedFixture's file): a change of writeSaved that is meant to change
// nothing, such as how it buffers the dictionary, must keep them.
func TestSavedFormatGolden(t *testing.T) {
	x, _ := savedFixture(t)
	path := filepath.Join(t.TempDir(), "x.bm25")
	if _, err := x.WriteSaved(path, []byte("golden tag")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const want = "282c3bbf9075a40f930ac770275f075a56883f3bbc5d60161e9640f94d6bc8e3"
	if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != want {
		t.Fatalf("saved form of the fixture: %d bytes, SHA-256 %s, want %s", len(data), got, want)
	}
}
