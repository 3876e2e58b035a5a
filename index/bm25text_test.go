package index

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/index/bm25"
)

// textDoc is the i-th document of the BM25Text tests: three of eight
// words in its body (scores vary and repeat), a title of one.
func textDoc(i int, salt string) Doc {
	words := []string{"retries", "capped", "pool", "opened", "lazily", "timeout", "flush", "caches"}
	return Doc{ID: fmt.Sprintf("m%03d", i), Fields: map[string]string{
		"title": words[(i*7)%8] + " " + salt,
		"body":  fmt.Sprintf("%s %s and %s note %d", words[i%8], words[(i*3)%8], words[(i*5+1)%8], i),
	}}
}

var textQueries = []string{"retries capped", "pool opened lazily", "flush timeout caches", "note", "twin", "nothing here"}

func textQuery(q string, n int) Query {
	return Query{Texts: []Text{{Text: q, Weight: 1}}, Fields: map[string]float64{"title": 3, "body": 1}, Limit: n}
}

// checkSame fails unless t ranks every query as ref does: the same ids,
// order and scores to the last bit.
func checkSame(t *testing.T, when string, x *BM25Text, ref *bm25.Index) {
	t.Helper()
	for _, q := range textQueries {
		for _, n := range []int{1, 5, 40} {
			got, err := x.Search(context.Background(), textQuery(q, n))
			if err != nil {
				t.Fatalf("%s: %q: %v", when, q, err)
			}
			want := ref.Search(BM25Clauses(textQuery(q, n)), n, false)
			if len(got) != len(want) {
				t.Fatalf("%s: %q n=%d: %d hits, want %d", when, q, n, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i].ID || math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
					t.Fatalf("%s: %q n=%d hit %d = %v, want %v", when, q, n, i, got[i], want[i])
				}
			}
		}
	}
}

// apply applies a write to the reference index as BM25Text.Update does.
func apply(ref *bm25.Index, docs []Doc, deleted []string) {
	m := map[string][]bm25.Field{}
	for _, d := range docs {
		m[d.ID] = BM25Fields(d)
	}
	ref.Apply(m, deleted)
}

// rebuiltText opens a memory text index in a new directory, rebuilt
// with docs at generation 1, and returns it, its directory and the
// reference bm25.Index given the same documents.
func rebuiltText(t *testing.T, docs []Doc) (*BM25Text, string, *bm25.Index) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "text")
	x, _, err := OpenBM25Text(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Rebuild(docs, 1); err != nil {
		t.Fatal(err)
	}
	ref := bm25.New()
	apply(ref, docs, nil)
	return x, dir, ref
}

// TestBM25Text checks the memory text index: it ranks as a bm25.Index
// given the same writes, to the last bit, in every state — rebuilt and
// loaded, with writes in its log and not loaded (a process that only
// searches: the log is replayed), with the base only (searched on disk),
// after a compaction and in a process that crashed before one (the log
// left beside the base); a log record compacted already is skipped, a
// damaged log or base makes the index one to rebuild, and another schema
// too.
func TestBM25Text(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "text")
	x, ok, err := OpenBM25Text(dir, "s1")
	if err != nil || ok {
		t.Fatalf("new directory: ok %v, %v", ok, err)
	}
	ref := bm25.New()
	var docs []Doc
	for i := range 40 {
		docs = append(docs, textDoc(i, ""))
	}
	for i := range 8 { // exact ties
		docs = append(docs, Doc{ID: fmt.Sprintf("t%d", i), Fields: map[string]string{"title": "twin", "body": "flush timeout twin"}})
	}
	if err := x.Rebuild(docs, 7); err != nil {
		t.Fatal(err)
	}
	apply(ref, docs, nil) // Rebuild's one write (of up to 1,000)
	checkSame(t, "rebuilt", x, ref)
	if err := x.Load(); err != nil { // as the daemon's WarmText
		t.Fatal(err)
	}

	// Writes: replacements, new documents, deletions (one unknown).
	w1 := []Doc{textDoc(3, "twin"), textDoc(50, "caches"), textDoc(51, "")}
	w2 := []Doc{textDoc(52, "pool")}
	if err := x.Update(w1, []string{"m010", "nope"}, 8); err != nil {
		t.Fatal(err)
	}
	apply(ref, w1, []string{"m010", "nope"})
	if err := x.Update(w2, []string{"t0"}, 9); err != nil {
		t.Fatal(err)
	}
	apply(ref, w2, []string{"t0"})
	checkSame(t, "loaded with a log", x, ref)
	log, err := os.ReadFile(filepath.Join(dir, bm25LogFile))
	if err != nil || len(log) == 0 {
		t.Fatalf("no log after writes: %v", err)
	}

	// Another process while x is open (or after x's process crashed):
	// base and log on disk.
	y, ok, err := OpenBM25Text(dir, "s1")
	if err != nil || !ok {
		t.Fatalf("reopen: ok %v, %v", ok, err)
	}
	if g, known := y.Generation(); !known || g != 9 {
		t.Fatalf("generation %d %v, want 9", g, known)
	}
	if n, err := y.Count(); err != nil || n != uint64(ref.Len()) {
		t.Fatalf("count %d %v, want %d", n, err, ref.Len())
	}
	checkSame(t, "replayed", y, ref)
	if y.x != nil || y.over == nil {
		t.Fatal("a short log was not laid over the base")
	}
	y.closeFiles()

	// Close compacts a loaded index: base only, searched on disk.
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, bm25LogFile)); !os.IsNotExist(err) {
		t.Fatalf("log after close: %v", err)
	}
	z, ok, err := OpenBM25Text(dir, "s1")
	if err != nil || !ok {
		t.Fatalf("reopen after close: ok %v, %v", ok, err)
	}
	if g, _ := z.Generation(); g != 9 {
		t.Fatalf("generation %d, want 9", g)
	}
	if n, err := z.Count(); err != nil || n != uint64(ref.Len()) {
		t.Fatalf("count %d %v, want %d", n, err, ref.Len())
	}
	checkSame(t, "base on disk", z, ref)
	if z.x != nil {
		t.Fatal("a search with an empty log loaded the index")
	}
	if err := z.Load(); err != nil {
		t.Fatal(err)
	}
	checkSame(t, "base loaded", z, ref)
	z.closeFiles()

	// A crash between the base's rename and the log's removal: the
	// log's records are at or below the base's generation.
	if err := os.WriteFile(filepath.Join(dir, bm25LogFile), log, 0o600); err != nil {
		t.Fatal(err)
	}
	z, ok, err = OpenBM25Text(dir, "s1")
	if err != nil || !ok {
		t.Fatalf("stale log: ok %v, %v", ok, err)
	}
	if g, _ := z.Generation(); g != 9 || z.logN != 0 {
		t.Fatalf("stale log: generation %d, %d logged", g, z.logN)
	}
	checkSame(t, "stale log skipped", z, ref)
	w3 := []Doc{textDoc(60, "lazily")}
	if err := z.Update(w3, nil, 10); err != nil {
		t.Fatal(err)
	}
	apply(ref, w3, nil)
	checkSame(t, "after a stale log", z, ref)
	w4 := []Doc{textDoc(61, "twin"), textDoc(60, "pool")} // to the overlay
	if err := z.Update(w4, []string{"m020"}, 11); err != nil {
		t.Fatal(err)
	}
	apply(ref, w4, []string{"m020"})
	checkSame(t, "overlay after a write", z, ref)
	if z.x != nil || z.over == nil {
		t.Fatal("the overlay was not used")
	}
	z.closeFiles()

	// A torn record: to rebuild.
	log, _ = os.ReadFile(filepath.Join(dir, bm25LogFile))
	if err := os.WriteFile(filepath.Join(dir, bm25LogFile), log[:len(log)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := OpenBM25Text(dir, "s1"); ok {
		t.Fatal("a torn log record was accepted")
	}
	// A damaged base, another schema: to rebuild.
	for _, damage := range []func() error{
		func() error { return os.WriteFile(filepath.Join(dir, bm25BaseFile), []byte("GLBM25S2 nothing"), 0o600) },
		func() error { return os.WriteFile(filepath.Join(dir, schemaFile), []byte("s2\n"), 0o600) },
	} {
		if err := x.Rebuild(docs, 7); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := OpenBM25Text(dir, "s1"); ok || err != nil {
			t.Fatalf("damaged: ok %v, %v", ok, err)
		}
	}
}

// TestBM25TextCompacts checks that a loaded index (Load) compacts its
// log once it outgrows compactMin and half the base, and one not loaded
// once it holds mergeMax documents, by merging it into the base without
// loading it; either ranks as before, and as reopened.
func TestBM25TextCompacts(t *testing.T) {
	for _, loaded := range []bool{true, false} {
		x, _, ref := rebuiltText(t, nil)
		if loaded {
			if err := x.Load(); err != nil {
				t.Fatal(err)
			}
		}
		gen, limit := uint64(1), compactMin+600
		if !loaded {
			limit = mergeMax + 600
		}
		for i := 0; i < limit; i += 300 {
			var w []Doc
			for j := i; j < i+300; j++ {
				w = append(w, textDoc(j, ""))
			}
			gen++
			if err := x.Update(w, []string{fmt.Sprintf("m%03d", i/2)}, gen); err != nil {
				t.Fatal(err)
			}
			apply(ref, w, []string{fmt.Sprintf("m%03d", i/2)})
		}
		checkSame(t, fmt.Sprintf("compacted, loaded %v", loaded), x, ref) // waits for a merge
		if x.logN >= limit-600 || x.baseGen == 1 || x.Loaded() != loaded || x.merging != nil {
			t.Fatalf("loaded %v: no compaction: %d logged, base at %d", loaded, x.logN, x.baseGen)
		}
		reopenSame(t, "compacted, reopened", x, gen, ref)
	}
}

// reopenSame opens x's directory again (another process) and fails
// unless it is at generation gen and ranks as ref; then x is closed.
func reopenSame(t *testing.T, when string, x *BM25Text, gen uint64, ref *bm25.Index) {
	t.Helper()
	y, ok, err := OpenBM25Text(x.dir, x.schema)
	if err != nil || !ok {
		t.Fatalf("%s: reopen: %v %v", when, ok, err)
	}
	if g, _ := y.Generation(); g != gen {
		t.Fatalf("%s: reopened at %d, want %d", when, g, gen)
	}
	checkSame(t, when, y, ref)
	y.closeFiles()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBM25TextMergeBehind checks the merge that runs beside later
// writes (bgMerge): writes made while it runs are ranked once it is in
// place and are the new log (a reopened index ranks the same); a merge
// that fails (its file cannot be renamed into place) leaves the old base
// and log, the writes laid over them, and the next merge succeeds.
func TestBM25TextMergeBehind(t *testing.T) {
	for _, fail := range []bool{false, true} {
		x, dir, ref := rebuiltText(t, nil)
		if fail { // a directory where the merged base goes: its rename fails
			if err := os.MkdirAll(filepath.Join(dir, bm25MergeFile, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		gen := uint64(1)
		write := func(lo, hi int) {
			var w []Doc
			for j := lo; j < hi; j++ {
				w = append(w, textDoc(j, "w"))
			}
			gen++
			if err := x.Update(w, []string{fmt.Sprintf("m%03d", lo/3)}, gen); err != nil {
				t.Fatal(err)
			}
			apply(ref, w, []string{fmt.Sprintf("m%03d", lo/3)})
		}
		for i := 0; i < mergeMax; i += 512 {
			write(i, i+512)
		}
		if x.merging == nil {
			t.Fatalf("fail %v: no merge started at %d documents", fail, x.logN)
		}
		// Writes while it runs (it may be done already: then they start
		// the next round).
		write(mergeMax, mergeMax+300)
		write(mergeMax+300, mergeMax+600)
		checkSame(t, fmt.Sprintf("fail %v: writes beside a merge", fail), x, ref)
		if fail {
			if x.mergeFailures != 1 {
				t.Fatalf("%d merges failed, want 1", x.mergeFailures)
			}
			for i := mergeMax + 600; i < 2*mergeMax+600; i += 512 {
				write(i, i+512)
			}
			checkSame(t, "after a failed merge, the next one", x, ref)
		}
		if x.baseGen == 1 || x.logN >= mergeMax {
			t.Fatalf("fail %v: base at %d, %d logged", fail, x.baseGen, x.logN)
		}
		reopenSame(t, "reopened after a merge", x, gen, ref)
	}
}

// TestBM25TextOverlayCompacts checks that a log whose deletions would
// have compacted the loaded index is not laid over the base: the index
// is loaded, and ranks as the bm25.Index given the same writes.
func TestBM25TextOverlayCompacts(t *testing.T) {
	var docs []Doc
	for i := range 1500 {
		docs = append(docs, textDoc(i, ""))
	}
	x, dir, ref := rebuiltText(t, docs)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, ok, err := OpenBM25Text(dir, "s1")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	defer y.Close()
	var del []string
	for i := range 1100 {
		del = append(del, docs[i].ID)
	}
	w := []Doc{textDoc(2000, "twin")}
	if err := y.Update(w, del, 2); err != nil {
		t.Fatal(err)
	}
	apply(ref, w, del)
	if _, _, terms := ref.FieldStats("body"); terms == 0 {
		t.Fatal("empty reference")
	}
	checkSame(t, "compacting log", y, ref)
	if y.x != nil || y.logN != 0 {
		t.Fatal("a log that compacts was not folded in at once")
	}
	// The same with the overlay made first (a batch's write), then a
	// write whose deletions compact it.
	var added []Doc
	for i := 3000; i < 4500; i++ {
		added = append(added, textDoc(i, "added"))
	}
	if err := y.Update(added, nil, 3); err != nil {
		t.Fatal(err)
	}
	apply(ref, added, nil)
	if y.over == nil || y.logN != len(added) {
		t.Fatalf("a batch's write: overlay %v, %d logged", y.over != nil, y.logN)
	}
	var del2 []string
	for _, d := range added[:1200] {
		del2 = append(del2, d.ID)
	}
	if err := y.Update(nil, del2, 4); err != nil {
		t.Fatal(err)
	}
	apply(ref, nil, del2)
	if y.logN != 0 {
		t.Fatal("an overlay that compacts was not folded in at once")
	}
	checkSame(t, "compacting overlay", y, ref)
}

// TestSavedLoad checks that bm25.Saved.Load gives back the index that was
// saved: equal postings, ids and statistics, with tombstones.
func TestSavedLoad(t *testing.T) {
	ref := bm25.New()
	var docs []Doc
	for i := range 300 {
		docs = append(docs, textDoc(i, "x"))
	}
	apply(ref, docs, []string{"m001", "m050"})
	apply(ref, docs[:20], nil) // replaced: tombstones
	path := filepath.Join(t.TempDir(), "base.bm25")
	if _, err := ref.WriteSaved(path, []byte("t")); err != nil {
		t.Fatal(err)
	}
	s, err := bm25.OpenSaved(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"title", "body"} {
		d1, l1, t1 := ref.FieldStats(f)
		d2, l2, t2 := got.FieldStats(f)
		if d1 != d2 || l1 != l2 || t2 > t1 {
			t.Fatalf("%s: stats %d %d %d, want %d %d %d", f, d2, l2, t2, d1, l1, t1)
		}
	}
	if got.Len() != ref.Len() {
		t.Fatalf("%d documents, want %d", got.Len(), ref.Len())
	}
	for _, q := range textQueries {
		a := got.Search(BM25Clauses(textQuery(q, 500)), 500, false)
		b := ref.Search(BM25Clauses(textQuery(q, 500)), 500, false)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: loaded %v, saved from %v", q, a, b)
		}
	}
}

// TestBM25FieldsSameAsAnalyzer checks BM25Fields (the pooled tokenizer)
// against the English analyzer's tokens counted per term, on every .go
// and .md file of the repository as one field, and on texts with
// non-ASCII bytes, whole and by line.
func TestBM25FieldsSameAsAnalyzer(t *testing.T) {
	ref := func(text string) bm25.Field {
		toks := analyzer().Analyze([]byte(text))
		freqs := map[string]int{}
		for _, tok := range toks {
			freqs[string(tok.Term)]++
		}
		return bm25.FieldOf("f", len(toks), freqs)
	}
	check := func(where, text string) {
		got := BM25Fields(Doc{ID: "x", Fields: map[string]string{"f": text, "g": text + " extra"}})
		if len(got) != 2 || !sameField(got[0], ref(text)) {
			t.Fatalf("%s: fields differ from the analyzer's", where)
		}
	}
	for _, s := range []string{"", "Déjà vu: the café's caches", "a \xff b c", "naïve retries", "ShortString, alerts! 3.14"} {
		check(fmt.Sprintf("%q", s), s)
	}
	n := 0
	eachRepoFile(t, "..", func(path string, data []byte) {
		check(path, string(data))
		n++
	})
	if n == 0 {
		t.Fatal("no file read")
	}
}

// TestOverlayWriteSaved checks that a saved index with writes laid over
// it (bm25.Overlay) saves the same file, byte for byte, as the saved
// index loaded, given the same writes and saved: replacements, deletions
// (of saved documents and of the writes' own), a document put and
// deleted in one write, new terms and fields.
func TestOverlayWriteSaved(t *testing.T) {
	tmp := t.TempDir()
	base := filepath.Join(tmp, "base.bm25")
	x := bm25.New()
	var docs []Doc
	for i := range 700 {
		docs = append(docs, textDoc(i, "base"))
	}
	apply(x, docs, []string{"m005"})
	apply(x, docs[:30], nil) // tombstones in the base
	if _, err := x.WriteSaved(base, []byte("tag")); err != nil {
		t.Fatal(err)
	}
	var added []Doc // new documents only: saved blocks copied as they are
	for i := 1000; i < 1300; i++ {
		added = append(added, textDoc(i, "added"))
	}
	for _, writes := range [][]write{{
		{[]Doc{textDoc(3, "replaced"), textDoc(900, "new"), {ID: "n1", Fields: map[string]string{"title": "fresh", "extra": "a field the base lacks"}}}, []string{"m010", "unknown"}},
		{[]Doc{textDoc(901, "twin"), textDoc(902, "")}, []string{"m900", "m902"}},
		{[]Doc{textDoc(11, "again")}, []string{"m011"}},
	}, {
		{added[:100], nil},
		{added[100:], []string{"m1000", "unknown"}},
	}} {
		overlaySavesAsLoaded(t, base, writes)
	}
}

type write struct {
	docs    []Doc
	deleted []string
}

// overlaySavesAsLoaded fails unless the saved index at base with writes
// laid over it saves the file the index loaded with the writes applied
// does.
func overlaySavesAsLoaded(t *testing.T, base string, writes []write) {
	t.Helper()
	tmp := t.TempDir()
	s, err := bm25.OpenSaved(base)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	loaded, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.NewOverlay()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		m := map[string][]bm25.Field{}
		for _, d := range w.docs {
			m[d.ID] = BM25Fields(d)
		}
		loaded.Apply(m, w.deleted)
		o.Apply(m, w.deleted)
	}
	if o.Compacts() {
		t.Fatal("the writes compact")
	}
	if o.Len() != loaded.Len() {
		t.Fatalf("overlay %d documents, loaded %d", o.Len(), loaded.Len())
	}
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	if _, err := loaded.WriteSaved(a, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if _, err := o.WriteSaved(b, []byte("new")); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Fatalf("overlay saved %d bytes, loaded index %d, not the same", len(db), len(da))
	}
}

// sameField reports whether a and b are the same field: name, length and
// terms with their frequencies, in any order.
func sameField(a, b bm25.Field) bool {
	if a.Name != b.Name || a.Length != b.Length || len(a.Terms) != len(b.Terms) {
		return false
	}
	m := map[string]int{}
	for _, t := range a.Terms {
		m[t.Term] += t.TF
	}
	for _, t := range b.Terms {
		if m[t.Term] != t.TF {
			return false
		}
	}
	return true
}

// logRecordSize is the length of the payload appendLogRecord writes, for
// records with no documents, short and long ids, fields and terms
// (uvarints of one to three bytes), and deletions; the payload decodes.
func TestLogRecordSize(t *testing.T) {
	long := strings.Repeat("x", 200)
	docs := []Doc{
		{ID: "a", Fields: map[string]string{"title": "one", "body": "two three"}},
		{ID: long, Fields: map[string]string{"body": strings.Repeat("alpha beta gamma ", 400) + long}},
		{ID: "c", Fields: map[string]string{}},
	}
	fields := bm25FieldsOf(docs)
	for _, c := range []struct {
		gen     uint64
		docs    []Doc
		deleted []string
	}{{0, nil, nil}, {1, docs[:1], nil}, {1 << 40, docs, []string{"d", long}}, {300, nil, []string{"e"}}} {
		rec := appendLogRecord(nil, c.gen, c.docs, fields[:len(c.docs)], c.deleted)
		if n := logRecordSize(c.gen, c.docs, fields[:len(c.docs)], c.deleted); n != len(rec) {
			t.Errorf("gen %d, %d documents: size %d, record %d bytes", c.gen, len(c.docs), n, len(rec))
		}
		if gen, got, deleted, err := decodeLogRecord(rec, true); err != nil || gen != c.gen || len(got) != len(c.docs) || len(deleted) != len(c.deleted) {
			t.Errorf("gen %d: decoded gen %d, %d documents, %d deleted, %v", c.gen, gen, len(got), len(deleted), err)
		}
	}
}

// BenchmarkBM25Fields analyzes a memory-like document: eight fields, one
// of a few hundred words, the others a few words each (a pooled map
// grown by the long field serves the short ones).
func BenchmarkBM25Fields(b *testing.B) {
	long := strings.Repeat("retries are capped at three attempts because the upstream rate-limits bursts of requests; ", 12)
	d := Doc{ID: "m", Fields: map[string]string{
		"title": "Retries are capped at 3", "body": long, "tags": "retry http", "type": "gotcha",
		"symbols": "Retry retry", "paths": "svc/retry.go svc retry go", "words": long, "code": "func Retry ctx context",
	}}
	b.ReportAllocs()
	for b.Loop() {
		BM25Fields(d)
	}
}
