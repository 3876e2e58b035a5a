package index

import (
	"context"
	"path/filepath"
	"testing"
)

func ftSearch(t *testing.T, f *FullText, q string) string {
	t.Helper()
	got, err := f.Search(context.Background(), Query{Texts: []Text{{Text: q, Weight: 1}}, Fields: map[string]float64{"body": 1}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	return ids(got)
}

// TestFullTextReadsWithoutWriter checks an index opened again: it is
// read without a writer (no Bluge writer until the first write), a
// search holding the reader survives the writer's opening, and writes
// then land and persist.
func TestFullTextReadsWithoutWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bluge")
	f, ok, err := OpenFullText(dir, "1")
	if err != nil || ok {
		t.Fatalf("new index: ok %v, err %v", ok, err)
	}
	doc := func(id, body string) Doc { return Doc{ID: id, Fields: map[string]string{"body": body}} }
	if err := f.Rebuild([]Doc{doc("m1", "retries are capped"), doc("m2", "flush timeout")}, 4); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, ok, err = OpenFullText(dir, "1")
	if err != nil || !ok || f.writer != nil || f.reader == nil {
		t.Fatalf("reopen: ok %v, err %v, writer %v (want a reader only)", ok, err, f.writer != nil)
	}
	defer f.Close()
	if got := ftSearch(t, f, "retries"); got != "m1" {
		t.Fatalf("search retries = %q, want m1", got)
	}
	if n, err := f.Count(); err != nil || n != 2 {
		t.Fatalf("count %d, %v", n, err)
	}
	held, release, err := f.snapshot() // a search in flight
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Update([]Doc{doc("m3", "retries of the flush")}, []string{"m2"}, 5); err != nil {
		t.Fatal(err)
	}
	if n, err := held.Count(); err != nil || n != 2 {
		t.Fatalf("held reader after the writer opened: count %d, %v", n, err)
	}
	release()
	if got := ftSearch(t, f, "flush"); got != "m3" {
		t.Fatalf("after update: search flush = %q, want m3", got)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f2, ok, err := OpenFullText(dir, "1")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	defer f2.Close()
	if got := ftSearch(t, f2, "retries"); got != "m1,m3" && got != "m3,m1" {
		t.Fatalf("after reopening: search retries = %q, want m1 and m3", got)
	}
	if g, known := f2.Generation(); !known || g != 5 {
		t.Fatalf("generation %d %v, want 5", g, known)
	}
}
