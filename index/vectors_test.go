package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/embed"
)

// letterEmbedder embeds a text as the normalised counts of the letters
// a..h: texts sharing letters are near. It counts the texts it embeds and
// fails while fail is set.
type letterEmbedder struct {
	model    string
	embedded int
	fail     error
}

func (l *letterEmbedder) Model() string { return l.model }
func (l *letterEmbedder) Dim() int      { return 8 }
func (l *letterEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if l.fail != nil {
		return nil, l.fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 8)
		for _, r := range t {
			if r >= 'a' && r <= 'h' {
				v[r-'a']++
			}
		}
		embed.Normalize(v)
		out[i] = v
	}
	l.embedded += len(texts)
	return out, nil
}

// letterVec is text's vector by e.
func letterVec(e *letterEmbedder, text string) []float32 {
	out, _ := e.Embed(context.Background(), []string{text})
	return out[0]
}

func vdoc(id, text string) Doc { return Doc{ID: id, Fields: map[string]string{VectorText: text}} }

func ids(s []Scored) string {
	var out []string
	for _, x := range s {
		out = append(out, x.ID)
	}
	return strings.Join(out, ",")
}

func search(t *testing.T, v *Vectors, q string, k int) string {
	t.Helper()
	got, err := v.Search(context.Background(), Query{Texts: []Text{{Text: q, Weight: 1}}, Limit: k})
	if err != nil {
		t.Fatal(err)
	}
	return ids(got)
}

func openVec(t *testing.T, dir string, e embed.Embedder) (*Vectors, bool) {
	t.Helper()
	v, ok, err := OpenVectors(dir, e)
	if err != nil {
		t.Fatal(err)
	}
	return v, ok
}

func TestVectorsUpdateSearchReopen(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, ok := openVec(t, dir, e)
	if ok {
		t.Fatal("a new index reported ok")
	}
	if err := v.Rebuild([]Doc{vdoc("m1", "aaa"), vdoc("m2", "bbb"), vdoc("m3", "aab")}, 3); err != nil {
		t.Fatal(err)
	}
	// m4 ties with m1 (same text): ids ascending.
	if err := v.Update([]Doc{vdoc("m4", "aaa"), vdoc("m2", "hhh")}, []string{"m3"}, 4); err != nil {
		t.Fatal(err)
	}
	if got := search(t, v, "a", 3); got != "m1,m4" {
		t.Fatalf("search a = %s, want m1,m4 (m2 no longer shares a letter, m3 deleted)", got)
	}
	v2, ok := openVec(t, dir, e)
	if !ok {
		t.Fatal("reopened index not ok")
	}
	if g, known := v2.Generation(); !known || g != 4 {
		t.Fatalf("generation %d %v, want 4 true", g, known)
	}
	if n, _ := v2.Count(); n != 3 {
		t.Fatalf("count %d, want 3", n)
	}
	if got := search(t, v2, "h", 5); got != "m2" {
		t.Fatalf("after reopen: search h = %s, want m2", got)
	}
	if _, err := v2.SearchVector([]float32{1, 0}, 3); err == nil {
		t.Fatal("a query of another dimension was searched")
	}
}

func TestVectorsModelChangeReembeds(t *testing.T) {
	dir := t.TempDir()
	v, _ := openVec(t, dir, &letterEmbedder{model: "letters@1"})
	docs := []Doc{vdoc("m1", "abc"), vdoc("m2", "def")}
	if err := v.Rebuild(docs, 1); err != nil {
		t.Fatal(err)
	}
	e2 := &letterEmbedder{model: "letters@2"}
	v2, ok := openVec(t, dir, e2)
	if ok {
		t.Fatal("index of another model reported ok")
	}
	if n, _ := v2.Count(); n != 0 {
		t.Fatalf("rows of the old model kept: %d", n)
	}
	var progress []string
	v2.Progress = func(done, total int) { progress = append(progress, fmt.Sprint(done, "/", total)) }
	if err := v2.Rebuild(docs, 1); err != nil {
		t.Fatal(err)
	}
	if e2.embedded != 2 || strings.Join(progress, " ") != "2/2" {
		t.Fatalf("re-embedded %d texts, progress %q; want 2 and 2/2", e2.embedded, progress)
	}
	// SetEmbedder with a new model drops the rows too.
	if !v2.SetEmbedder(&letterEmbedder{model: "letters@3"}) {
		t.Fatal("SetEmbedder of a new model did not reset")
	}
	if _, known := v2.Generation(); known {
		t.Fatal("generation known after a model change")
	}
}

func TestVectorsCorruptAndInvalid(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	if err := v.Rebuild([]Doc{vdoc("m1", "abc"), vdoc("m2", "def")}, 1); err != nil {
		t.Fatal(err)
	}
	if err := v.Update([]Doc{vdoc("m3", "ggg")}, nil, 2); err != nil {
		t.Fatal(err)
	}
	// A torn log: the base's rows are kept for reuse, the index is rebuilt.
	logPath := filepath.Join(dir, vecLogFile)
	data, _ := os.ReadFile(logPath)
	if err := os.WriteFile(logPath, data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	v2, ok := openVec(t, dir, e)
	if ok {
		t.Fatal("torn log reported ok")
	}
	e.embedded = 0
	if err := v2.Rebuild([]Doc{vdoc("m1", "abc"), vdoc("m2", "changed"), vdoc("m3", "ggg")}, 2); err != nil {
		t.Fatal(err)
	}
	if e.embedded != 2 {
		t.Fatalf("rebuild embedded %d texts, want 2 (m2 changed, m3 only in the torn log)", e.embedded)
	}
	// A damaged base (TestVectorsDamagedBase for each place).
	base := filepath.Join(dir, vecBaseFile)
	data, _ = os.ReadFile(base)
	data[len(data)/2] ^= 0x55
	if err := os.WriteFile(base, data, 0o600); err != nil {
		t.Fatal(err)
	}
	v4, _ := openVec(t, dir, e)
	if _, err := v4.SearchVector(letterVec(e, "abc"), 5); !errors.Is(err, ErrVectorsCorrupt) {
		t.Fatalf("search of a damaged base: err %v", err)
	}
	if _, known := v4.Generation(); known {
		t.Fatal("damaged base reported a known generation after its first search")
	}
	// Invalidate survives reopening.
	v3, _ := openVec(t, dir, e)
	if err := v3.Rebuild([]Doc{vdoc("m1", "abc")}, 7); err != nil {
		t.Fatal(err)
	}
	v3.Invalidate()
	if _, ok := openVec(t, dir, e); ok {
		t.Fatal("invalidated index reported ok")
	}
}

func TestVectorsFailedUpdateAndCompaction(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	if err := v.Rebuild(nil, 0); err != nil {
		t.Fatal(err)
	}
	e.fail = errors.New("connection refused")
	if err := v.Update([]Doc{vdoc("m1", "abc")}, nil, 1); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("failed embedder: err %v", err)
	}
	if g, _ := v.Generation(); g != 0 {
		t.Fatalf("generation moved to %d after a failed update", g)
	}
	e.fail = nil
	for i := 0; i < 700; i++ { // two records each: the log is compacted past 1,024
		if err := v.Update([]Doc{vdoc(fmt.Sprintf("m%04d", i), "abc")}, nil, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if v.logRecs >= 1024 {
		t.Fatalf("log holds %d records, not compacted", v.logRecs)
	}
	v2, ok := openVec(t, dir, e)
	if n, _ := v2.Count(); !ok || n != 700 {
		t.Fatalf("after compaction: ok %v, %d rows, want 700", ok, n)
	}
	if g, _ := v2.Generation(); g != 700 {
		t.Fatalf("generation %d, want 700", g)
	}
	// An unchanged text is not embedded again.
	e.embedded = 0
	if err := v2.Update([]Doc{vdoc("m0001", "abc")}, nil, 701); err != nil || e.embedded != 0 {
		t.Fatalf("unchanged text: err %v, embedded %d", err, e.embedded)
	}
}

// TestVectorsLogRowsSecondBlock checks the two row blocks of a replayed
// index: rows added by the log sit after the mapped base rows, and
// deletions of base rows and of added rows, and rewrites of base rows,
// give the same rows and searches as the index that wrote the log, after
// reopening and after compaction.
func TestVectorsLogRowsSecondBlock(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	if err := v.Rebuild([]Doc{vdoc("b1", "aaa"), vdoc("b2", "bbb"), vdoc("b3", "ccc"), vdoc("b4", "ddd")}, 1); err != nil {
		t.Fatal(err)
	}
	v, _ = openVec(t, dir, e) // rows now in the mapped base
	steps := []struct {
		docs    []Doc
		deleted []string
	}{
		{[]Doc{vdoc("n1", "eee"), vdoc("n2", "fff"), vdoc("n3", "ggg")}, nil},
		{[]Doc{vdoc("b2", "hhh")}, []string{"b1"}}, // rewrite a base row; delete one (an added row moves into the base block)
		{nil, []string{"n2", "b4"}},
		{[]Doc{vdoc("n4", "aab")}, nil},
	}
	for i, s := range steps {
		if err := v.Update(s.docs, s.deleted, uint64(i+2)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"a": "n4", "b": "n4", "c": "b3", "e": "n1", "f": "", "g": "n3", "h": "b2", "d": ""}
	check := func(name string, v *Vectors) {
		t.Helper()
		if n, _ := v.Count(); n != 5 {
			t.Fatalf("%s: %d rows, want 5 (b2 b3 n1 n3 n4)", name, n)
		}
		for q, w := range want {
			if got := search(t, v, q, 5); got != w {
				t.Errorf("%s: search %s = %q, want %q", name, q, got, w)
			}
		}
	}
	check("writer", v)
	v2, ok := openVec(t, dir, e)
	if !ok || v2.logRecs == 0 {
		t.Fatalf("reopen: ok %v, %d log records (want a replayed log)", ok, v2.logRecs)
	}
	check("replayed", v2)
	v2.mu.Lock()
	err := v2.writeBase(v2.st)
	v2.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	v3, _ := openVec(t, dir, e)
	check("compacted", v3)
}

// TestVectorsOpenCompactsLongLog checks that opening an index whose log
// is longer than longLog allows (written by a gloss that compacted
// later) compacts it: the log is gone, the rows and generation are the
// log's, and the next opening reads the base alone.
func TestVectorsOpenCompactsLongLog(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	if err := v.Rebuild([]Doc{vdoc("b1", "aaa")}, 1); err != nil {
		t.Fatal(err)
	}
	vec, _ := e.Embed(context.Background(), []string{"bbb"})
	var recs [][]byte
	for i := 0; i < 1100; i++ {
		recs = append(recs, appendRow([]byte{recUpsert}, fmt.Sprintf("n%04d", i), 7, vec[0]))
	}
	recs = append(recs, append([]byte{recDelete}, "b1"...), le.AppendUint64([]byte{recGeneration}, 9))
	if err := appendLog(filepath.Join(dir, vecLogFile), v.st.epoch, recs); err != nil {
		t.Fatal(err)
	}
	v2, ok := openVec(t, dir, e)
	if !ok || v2.logRecs != 0 {
		t.Fatalf("open: ok %v, %d log records left (want the log compacted)", ok, v2.logRecs)
	}
	if _, err := os.Stat(filepath.Join(dir, vecLogFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the log is still there: %v", err)
	}
	for _, x := range []*Vectors{v2, func() *Vectors { v3, _ := openVec(t, dir, e); return v3 }()} {
		if n, _ := x.Count(); n != 1100 {
			t.Fatalf("%d rows, want 1100", n)
		}
		if g, _ := x.Generation(); g != 9 {
			t.Fatalf("generation %d, want 9", g)
		}
		if got := search(t, x, "a", 3); got != "" {
			t.Fatalf("search a = %q, want nothing (b1 deleted)", got)
		}
		if got := search(t, x, "b", 2); got != "n0000,n0001" {
			t.Fatalf("search b = %q, want n0000,n0001", got)
		}
	}
}

// TestVectorsAppendThenCompactLog: Append never rewrites the base, even
// past the log length Update compacts at; the index reads the same
// before and after CompactLog, which leaves a short log alone and
// compacts a long one into a base that reopens with every row.
func TestVectorsAppendThenCompactLog(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	if err := v.Rebuild([]Doc{vdoc("b1", "aaa")}, 1); err != nil {
		t.Fatal(err)
	}
	if err := v.CompactLog(); err != nil || v.logRecs != 0 {
		t.Fatalf("CompactLog of an empty log: %v, %d records", err, v.logRecs)
	}
	epoch := v.st.epoch
	gen := uint64(1)
	for c := 0; c < 3; c++ { // 3 × 501 records: past max(1,024, rows/64)
		var docs []Doc
		for i := 0; i < 500; i++ {
			docs = append(docs, vdoc(fmt.Sprintf("n%d-%03d", c, i), "bbb"))
		}
		gen++
		if err := v.Append(docs, nil, gen); err != nil {
			t.Fatal(err)
		}
	}
	if v.st.epoch != epoch || v.logRecs != 3*501 {
		t.Fatalf("after Append: epoch %d (want %d), %d log records (want %d)", v.st.epoch, epoch, v.logRecs, 3*501)
	}
	if err := v.CompactLog(); err != nil {
		t.Fatal(err)
	}
	if v.logRecs != 0 || v.st.epoch == epoch {
		t.Fatalf("after CompactLog: %d log records, epoch %d (was %d)", v.logRecs, v.st.epoch, epoch)
	}
	// The rows written are read back from the base file (remapBase): none
	// is left in the heap block of added rows.
	if len(v.st.extra) != 0 || len(v.st.data) != 1501*v.st.dim || v.st.file == nil || v.st.file != v.base {
		t.Fatalf("after CompactLog: %d rows' floats in the base block, %d added, file %p (base %p)", len(v.st.data), len(v.st.extra), v.st.file, v.base)
	}
	// The index takes updates after the remap.
	gen++
	if err := v.Update([]Doc{vdoc("n3-000", "ccc")}, []string{"n0-000"}, gen); err != nil {
		t.Fatal(err)
	}
	if got := search(t, v, "c", 1); got != "n3-000" {
		t.Fatalf("search c after an update = %q, want n3-000", got)
	}
	// A base written from mapped rows, one of them overwritten through the
	// mapping by the delete (the last row moved into its place), keeps
	// every row (writeBaseFile reclaims the pages it has written).
	if err := v.writeBase(v.st); err != nil {
		t.Fatal(err)
	}
	if got := search(t, v, "c", 1); got != "n3-000" {
		t.Fatalf("search c after a second compaction = %q, want n3-000", got)
	}
	for _, x := range []*Vectors{v, func() *Vectors { v3, _ := openVec(t, dir, e); return v3 }()} {
		if n, _ := x.Count(); n != 1501 {
			t.Fatalf("%d rows, want 1501", n)
		}
		if g, _ := x.Generation(); g != 5 {
			t.Fatalf("generation %d, want 5", g)
		}
		if got := search(t, x, "a", 1); got != "b1" {
			t.Fatalf("search a = %q, want b1", got)
		}
	}
}

// TestVectorsReserve: rows appended after Reserve go to the block made
// for them, none copied on the way, and the index searches, counts and
// compacts as without it.
func TestVectorsReserve(t *testing.T) {
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, t.TempDir(), e)
	v.Reserve(100) // no dimension yet: nothing to do
	if err := v.Rebuild([]Doc{vdoc("b1", "aaa")}, 1); err != nil {
		t.Fatal(err)
	}
	v.Reserve(0)
	v.Reserve(1200)
	block := v.st.extra[:1:1]
	gen := uint64(1)
	for c := range 3 {
		var docs []Doc
		for i := range 400 {
			docs = append(docs, vdoc(fmt.Sprintf("n%d-%03d", c, i), "bbb"))
		}
		gen++
		if err := v.Append(docs, nil, gen); err != nil {
			t.Fatal(err)
		}
	}
	if len(v.st.extra) != 1200*v.st.dim || &v.st.extra[0] != &block[0] {
		t.Fatalf("%d added floats, want %d, in the reserved block: %v", len(v.st.extra), 1200*v.st.dim, &v.st.extra[0] == &block[0])
	}
	if n, _ := v.Count(); n != 1201 {
		t.Fatalf("%d rows, want 1201", n)
	}
	if got := search(t, v, "a", 1); got != "b1" {
		t.Fatalf("search a = %q, want b1", got)
	}
	if err := v.CompactLog(); err != nil {
		t.Fatal(err)
	}
	if n, _ := v.Count(); n != 1201 || len(v.st.extra) != 0 {
		t.Fatalf("after CompactLog: %d rows, %d added floats", n, len(v.st.extra))
	}
}

// TestReadVectorFilesAhead checks the files read before the embedder is
// known (ReadVectorFiles, as a CLI search reads them while its embedder
// loads): opened for the index's model they search as OpenVectors does,
// with the log's rows replayed; for another model they are not ok and
// empty; released unopened, the base file can be replaced.
func TestReadVectorFilesAhead(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	if err := v.Rebuild([]Doc{vdoc("m1", "aaa"), vdoc("m2", "bbb")}, 2); err != nil {
		t.Fatal(err)
	}
	if err := v.Update([]Doc{vdoc("m3", "aab")}, nil, 3); err != nil { // in the log
		t.Fatal(err)
	}
	v2, ok, err := ReadVectorFiles(dir).Open(e)
	if err != nil || !ok {
		t.Fatalf("open read-ahead files: ok %v, err %v", ok, err)
	}
	if got := search(t, v2, "a", 5); got != "m1,m3" {
		t.Fatalf("search a = %s, want m1,m3", got)
	}
	if g, known := v2.Generation(); !known || g != 3 {
		t.Fatalf("generation %d %v, want 3 true", g, known)
	}
	v3, ok, err := ReadVectorFiles(dir).Open(&letterEmbedder{model: "letters@2"})
	if err != nil || ok {
		t.Fatalf("files of letters@1 opened for letters@2: ok %v, err %v", ok, err)
	}
	if n, _ := v3.Count(); n != 0 {
		t.Fatalf("index of another model has %d rows, want 0", n)
	}
	f := ReadVectorFiles(dir)
	f.Release()
	var none *VectorFiles
	none.Release() // a nil VectorFiles is ignored
	if err := v.Rebuild([]Doc{vdoc("m9", "ccc")}, 4); err != nil {
		t.Fatal(err)
	}
	if got := search(t, openVecOK(t, dir, e), "c", 5); got != "m9" {
		t.Fatalf("after rebuild: search c = %s, want m9", got)
	}
	if _, _, err := ReadVectorFiles(filepath.Join(dir, "vectors.bin", "sub")).Open(e); err == nil {
		t.Fatal("a directory that cannot be created was opened")
	}
}

func openVecOK(t *testing.T, dir string, e embed.Embedder) *Vectors {
	t.Helper()
	v, ok := openVec(t, dir, e)
	if !ok {
		t.Fatal("index not ok")
	}
	return v
}

// TestVectorsUndecodedIDs checks an index opened from its base file,
// whose ids stay undecoded in the mapping until the rows change: ties
// are broken by id as with decoded ids, hits carry their ids, a base
// written from undecoded ids reads back the same, and the first update
// decodes them and keeps every row.
func TestVectorsUndecodedIDs(t *testing.T) {
	dir := t.TempDir()
	e := &letterEmbedder{model: "letters@1"}
	v, _ := openVec(t, dir, e)
	// Inserted in descending id order, so that rows and ids disagree.
	if err := v.Rebuild([]Doc{vdoc("m9", "aaa"), vdoc("m5", "bbb"), vdoc("m1", "aaa"), vdoc("m3", "aaa")}, 1); err != nil {
		t.Fatal(err)
	}
	v2 := openVecOK(t, dir, e)
	if v2.st.idOff == nil || v2.st.ids != nil {
		t.Fatal("opening decoded the ids")
	}
	if got := search(t, v2, "a", 2); got != "m1,m3" {
		t.Fatalf("tied search = %s, want m1,m3 (ids ascending)", got)
	}
	if err := v2.writeBase(v2.st); err != nil { // from undecoded ids
		t.Fatal(err)
	}
	v3 := openVecOK(t, dir, e)
	if got := search(t, v3, "a", 5); got != "m1,m3,m9" {
		t.Fatalf("after writing the base from undecoded ids: search a = %s, want m1,m3,m9", got)
	}
	if err := v3.Update([]Doc{vdoc("m2", "aaa")}, []string{"m3"}, 2); err != nil {
		t.Fatal(err)
	}
	if v3.st.idOff != nil {
		t.Fatal("an update left the ids undecoded")
	}
	if got := search(t, v3, "a", 5); got != "m1,m2,m9" {
		t.Fatalf("after an update: search a = %s, want m1,m2,m9", got)
	}
	if got := search(t, v3, "b", 5); got != "m5" {
		t.Fatalf("after an update: search b = %s, want m5", got)
	}
	if n, _ := openVecOK(t, dir, e).Count(); n != 4 {
		t.Fatalf("reopened after the update: %d rows, want 4", n)
	}
}

// TestVectorsDamagedBase flips one byte of a base file in each of its
// parts (header, ids, hashes, compact rows, rows, row checksums,
// checksums) and checks that the damage is found, whatever uses the
// index first: opening (structure, or a log to replay), the first search
// (which sums the compact rows as it scans them and checks the rows of
// its candidates), an update, a compaction, or a rebuild (which then
// reuses no row). A search that does not read a damaged float32 row
// (not a candidate) returns the undamaged index's results.
func TestVectorsDamagedBase(t *testing.T) {
	e := &letterEmbedder{model: "letters@1"}
	var docs []Doc
	for i := range 600 { // more rows than one chunk of a checking scan
		docs = append(docs, vdoc(fmt.Sprintf("m%04d", i), fmt.Sprintf("%c%c%c", 'a'+i%8, 'a'+i/8%8, 'a'+i%5)))
	}
	clean := t.TempDir()
	v, _ := openVec(t, clean, e)
	if err := v.Rebuild(docs, 3); err != nil {
		t.Fatal(err)
	}
	v.Close()
	good, err := os.ReadFile(filepath.Join(clean, vecBaseFile))
	if err != nil {
		t.Fatal(err)
	}
	idsAt := len(vecMagic) + 4 + len(e.model) + 24
	rowsAt := len(good) - 8 - 600*4 - 600*e.Dim()*4
	compAt := rowsAt - 600*compactStride(e.Dim())
	v0, _ := openVec(t, clean, e)
	want, err := v0.SearchVector(letterVec(e, "abc"), 5)
	if err != nil || len(want) == 0 {
		t.Fatalf("clean search: %v, %v", want, err)
	}
	var top int // the row of the best hit
	fmt.Sscanf(want[0].ID, "m%d", &top)
	v0.Close()
	// WarmRows on the clean file verifies every row: searches then check
	// none and find the same.
	v0, _ = openVec(t, clean, e)
	if err := v0.WarmRows(); err != nil || v0.st.check != nil {
		t.Fatalf("WarmRows on the clean file: %v, rows still to check: %v", err, v0.st.check != nil)
	}
	if got, err := v0.SearchVector(letterVec(e, "abc"), 5); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("search after WarmRows: %v, %v, want %v", got, err, want)
	}
	v0.Close()
	places := map[string]int{"model": len(vecMagic) + 4, "generation": len(vecMagic) + 4 + len(e.model) + 4, "ids": idsAt + 3,
		"hashes": idsAt + 600*7 + 8*300, "first compact row": compAt + 5, "last compact row": rowsAt - 1,
		"first row": rowsAt, "last row": rowsAt + 600*e.Dim()*4 - 1, "best hit's row": rowsAt + top*e.Dim()*4 + 3,
		"row checksums": len(good) - 8 - 600*4 + 13, "checksum": len(good) - 6, "row checksums' checksum": len(good) - 2}
	uses := map[string]func(v *Vectors) error{
		"search": func(v *Vectors) error { _, err := v.SearchVector(letterVec(e, "abc"), 5); return err },
		"update": func(v *Vectors) error { return v.Update([]Doc{vdoc("m0001", "zzz")}, nil, 4) },
		"compact": func(v *Vectors) error {
			v.logRecs = 1 << 20 // as if the log were long
			return v.CompactLog()
		},
		"warm": func(v *Vectors) error { return v.WarmRows() },
	}
	for place, at := range places {
		for use, run := range uses {
			dir := t.TempDir()
			bad := append([]byte(nil), good...)
			bad[at] ^= 0x10
			if err := os.WriteFile(filepath.Join(dir, vecBaseFile), bad, 0o600); err != nil {
				t.Fatal(err)
			}
			v, ok := openVec(t, dir, e)
			if ok && use == "search" && (place == "first row" || place == "last row") {
				// Found if read: the search then fails, or not read
				// (not a candidate): its results are the undamaged ones.
				got, err := v.SearchVector(letterVec(e, "abc"), 5)
				if err == nil && reflect.DeepEqual(got, want) {
					v.Close()
					continue
				}
				if !errors.Is(err, ErrVectorsCorrupt) {
					t.Errorf("%s damaged, then %s: %v, err %v; want the undamaged results or ErrVectorsCorrupt", place, use, got, err)
				}
			} else if ok {
				if err := run(v); !errors.Is(err, ErrVectorsCorrupt) {
					t.Errorf("%s damaged, then %s: err %v, want ErrVectorsCorrupt", place, use, err)
				}
			}
			if _, known := v.Generation(); known {
				t.Errorf("%s damaged, then %s: generation known", place, use)
			}
			if n, _ := v.Count(); n != 0 {
				t.Errorf("%s damaged, then %s: %d rows kept", place, use, n)
			}
			v.Close()
		}
	}
	// A rebuild over a damaged base re-embeds every document.
	dir := t.TempDir()
	bad := append([]byte(nil), good...)
	bad[len(bad)-9] ^= 0x10
	if err := os.WriteFile(filepath.Join(dir, vecBaseFile), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	v2, _ := openVec(t, dir, e)
	e.embedded = 0
	if err := v2.Rebuild(docs, 3); err != nil {
		t.Fatal(err)
	}
	if e.embedded != len(docs) {
		t.Fatalf("rebuild over a damaged base embedded %d of %d", e.embedded, len(docs))
	}
	// The undamaged file: its first search verifies it and matches the
	// results of a second one (verified) and of the rebuilt index.
	v3, ok := openVec(t, clean, e)
	if !ok {
		t.Fatal("clean base not ok")
	}
	first, err := v3.SearchVector(letterVec(e, "abc"), 10)
	if err != nil {
		t.Fatal(err)
	}
	second, err := v3.SearchVector(letterVec(e, "abc"), 10)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, err := v2.SearchVector(letterVec(e, "abc"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 || !reflect.DeepEqual(first, second) || !reflect.DeepEqual(first, rebuilt) {
		t.Fatalf("searches differ: %v, %v, %v", first, second, rebuilt)
	}
}

// hookEmbedder is a letterEmbedder that runs hook once, at its next
// Embed call, before embedding.
type hookEmbedder struct {
	letterEmbedder
	hook func()
}

func (h *hookEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f := h.hook; f != nil {
		h.hook = nil
		f()
	}
	return h.letterEmbedder.Embed(ctx, texts)
}

// Replace swaps in an index of another model built beside; a search
// whose query was embedded with the old model while the swap happened
// embeds it again with the new one, never comparing the two models.
func TestVectorsReplace(t *testing.T) {
	dir, nextDir := t.TempDir(), t.TempDir()
	old := &hookEmbedder{letterEmbedder: letterEmbedder{model: "letters@1"}}
	v, _ := openVec(t, dir, old)
	if err := v.Rebuild([]Doc{vdoc("m1", "aaa"), vdoc("m2", "bbb")}, 1); err != nil {
		t.Fatal(err)
	}
	// The new model sees every text as "h" plus its letters: m2 is the
	// only row with a b.
	e2 := &letterEmbedder{model: "letters@2"}
	next, _ := openVec(t, nextDir, e2)
	if err := next.Rebuild([]Doc{vdoc("m1", "hhh"), vdoc("m2", "bhh"), vdoc("m3", "hhh")}, 2); err != nil {
		t.Fatal(err)
	}
	old.hook = func() { v.Replace(next) } // the swap lands while the query is embedded
	embedded := e2.embedded
	if got := search(t, v, "b", 5); got != "m2" {
		t.Fatalf("search across the swap = %q, want the new model's m2", got)
	}
	if e2.embedded != embedded+1 {
		t.Fatalf("the new model embedded %d queries, want 1", e2.embedded-embedded)
	}
	if v.Model() != "letters@2" || v.Embedder() != embed.Embedder(e2) {
		t.Fatalf("model after Replace %s", v.Model())
	}
	if g, known := v.Generation(); !known || g != 2 {
		t.Fatalf("generation after Replace %d %v, want 2 true", g, known)
	}
	if n, _ := v.Count(); n != 3 {
		t.Fatalf("count after Replace %d, want 3", n)
	}
	if n, _ := next.Count(); n != 0 {
		t.Fatalf("the replaced-from index still has %d rows", n)
	}
}

// blockingEmbedder is a letterEmbedder whose Embed, while block is set,
// waits for its context to end and returns the context's error, as a
// remote embedder's request to a hung server does.
type blockingEmbedder struct {
	letterEmbedder
	block bool
}

func (b *blockingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if b.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return b.letterEmbedder.Embed(ctx, texts)
}

// AppendContext's embedding ends with the caller's context (not only
// after UpdateTimeout, which would end it with context.DeadlineExceeded):
// the error is context.Canceled, nothing is appended (rows, generation
// and log unchanged), and a later AppendContext appends.
func TestVectorsAppendContextCanceled(t *testing.T) {
	e := &blockingEmbedder{letterEmbedder: letterEmbedder{model: "letters@1"}}
	v, _ := openVec(t, t.TempDir(), e)
	if err := v.Rebuild([]Doc{vdoc("m1", "aaa")}, 1); err != nil {
		t.Fatal(err)
	}
	e.block = true
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- v.AppendContext(ctx, []Doc{vdoc("m2", "bbb")}, nil, 2) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("AppendContext after its context's end: %v, want context.Canceled", err)
	}
	if n, _ := v.Count(); n != 1 || v.logRecs != 0 {
		t.Fatalf("after the canceled append: %d rows, %d log records, want 1 and 0", n, v.logRecs)
	}
	if g, known := v.Generation(); !known || g != 1 {
		t.Fatalf("generation after the canceled append %d %v, want 1 true", g, known)
	}
	e.block = false
	if err := v.AppendContext(context.Background(), []Doc{vdoc("m2", "bbb")}, nil, 2); err != nil {
		t.Fatal(err)
	}
	if got := search(t, v, "b", 5); !strings.HasPrefix(got, "m2") {
		t.Fatalf("search after the append = %q, want m2 first", got)
	}
}
