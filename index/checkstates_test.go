package index

import (
	"bytes"
	"path/filepath"
	"testing"
)

// CheckStatesOf answers as CheckState per path: paths with and without a
// state, paths that are prefixes of others or share one with them, a
// path given twice, the empty path, a state deleted since (a memory
// write's invalidation) and one rewritten.
func TestCheckStatesOf(t *testing.T) {
	s, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewMemoryBatch()
	for _, p := range []string{"a", "a/b.go", "a.go", "a.go.bak", "z/y.py", "gone.go"} {
		if err := b.PutCheckState(p, []byte(`{"hash":"`+p+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b = s.NewMemoryBatch()
	if err := b.invalidate([]string{"gone.go"}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutCheckState("a.go", []byte(`{"hash":"new"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	paths := []string{"z/y.py", "a.go", "a", "a.g", "a.go.ba", "a/b.go", "gone.go", "missing", "a.go", "", "a/b"}
	got, err := s.CheckStatesOf(paths)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		want, err := s.CheckState(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[p], want) || (got[p] == nil) != (want == nil) {
			t.Errorf("%q: %q, CheckState %q", p, got[p], want)
		}
		if want != nil {
			n++
		}
	}
	if n != 5 || len(got) != 4 || string(got["a.go"]) != `{"hash":"new"}` {
		t.Fatalf("%d of the paths asked have a state (%d distinct), a.go %q", n, len(got), got["a.go"])
	}
}
