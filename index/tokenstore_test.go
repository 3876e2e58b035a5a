package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	ts "github.com/odvcencio/gotreesitter"
)

// tokenFixture writes Go, Python and TypeScript files (with comments,
// docstrings, raw strings and this package's extract.go) under a new root,
// dated an hour ago so that a second index run takes them for unchanged.
func tokenFixture(t *testing.T) (root string, paths []string) {
	t.Helper()
	root = t.TempDir()
	srcs := map[string]string{
		"a.go":   "package a\n\n// F doc.\nfunc F(x int) string {\n\ts := `raw\nmulti line`\n\treturn s + \"q\" // c\n}\n\ntype T struct{ A, B int }\n",
		"b.py":   "def f(x):\n    \"\"\"Doc\n    string.\"\"\"\n    s = '''a\n b'''\n    return x + 1  # c\n\nclass C:\n    pass\n",
		"c.ts":   "export function g(a: number): string {\n  const s = `t ${a}\n  u`;\n  return s; /* c\n d */\n}\n",
		"e.go":   "package a\n",
		"bad.go": "package a\n\nfunc Broken( {\n\treturn 1\n}\n",
	}
	if src, err := os.ReadFile("extract.go"); err == nil {
		srcs["x/extract.go"] = string(src)
	}
	old := time.Now().Add(-time.Hour)
	for p, src := range srcs {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(abs, old, old); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return root, paths
}

// indexedTokenFixture is tokenFixture indexed by one run of an Indexer
// into a new store, closed when t ends.
func indexedTokenFixture(t *testing.T) (root string, paths []string, st *Store, ix *Indexer) {
	t.Helper()
	root, paths = tokenFixture(t)
	st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix = &Indexer{Root: root, Store: st, Project: NewProject(root), Workers: 1}
	if _, err := ix.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	return root, paths, st, ix
}

// storedWithTokens returns the stored File of path with its stored tokens
// (RecordFile, LoadTokens) and whether LoadTokens found them; nil when
// the record does not describe the file (a syntax error, say).
func storedWithTokens(t *testing.T, st *Store, root, path string) (*File, bool) {
	t.Helper()
	rec, err := st.File(path)
	if err != nil || rec == nil {
		t.Fatalf("record of %s: %v %v", path, rec, err)
	}
	src, err := ReadSourceFile(root, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := RecordFile(rec, LanguageFor(path), src)
	if f == nil {
		return nil, false
	}
	return f, st.LoadTokens(f)
}

// TestStoredTokensMatchParse checks that a file built from its stored
// record and token record answers Tokens exactly as a parse of the same
// content does, for line windows and arbitrary byte windows; that a file
// changed on disk since the index gets no tokens; and that a store
// written without token records gets them from the next index run
// without counting the files as changed.
func TestStoredTokensMatchParse(t *testing.T) {
	root, paths, st, ix := indexedTokenFixture(t)
	parsers := map[*Language]*ts.Parser{}
	for _, p := range paths {
		f, ok := storedWithTokens(t, st, root, p)
		if f == nil {
			if p != "bad.go" {
				t.Errorf("%s: no stored file", p)
			}
			continue
		}
		if !ok {
			t.Fatalf("%s: no stored tokens", p)
		}
		parsed, err := ix.ParseSource(parsers, LanguageFor(p), p, f.Src)
		if err != nil {
			t.Fatal(err)
		}
		n := len(f.Src)
		for s := 0; s <= n; s += max(1, n/97) {
			for _, e := range []int{s + 1, s + 17, s + 300, n} {
				if got, want := f.Tokens(s, e), parsed.Tokens(s, e); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: Tokens(%d, %d) from the store:\n got %v\nwant %v", p, s, e, got, want)
				}
			}
		}
		for l := 0; l < f.Lines.Count(); l++ {
			r := f.Lines.LineRange(l, min(l+2, f.Lines.Count()-1))
			if got, want := HashTokens(f.Tokens(r.StartByte, r.EndByte)), HashTokens(parsed.Tokens(r.StartByte, r.EndByte)); got != want {
				t.Fatalf("%s: line %d: token hash %s, want %s", p, l, got, want)
			}
		}
		parsed.Release()
	}

	// Changed on disk, not indexed yet: the stored tokens do not apply.
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc G() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, _ := st.File("a.go")
	src, _ := ReadSourceFile(root, "a.go", 0)
	if f := RecordFile(rec, LanguageFor("a.go"), src); f != nil && st.LoadTokens(f) {
		t.Fatal("tokens of the indexed content given to a changed file")
	}
	f := &File{Path: "a.go", Src: src, srcHash: HashBytes(src)}
	if st.LoadTokens(f) {
		t.Fatal("LoadTokens took the token record of another content")
	}
}

// TestTokenRecordUpgrade checks that records written without token
// records (an older gloss) are parsed once by the next run, counted as
// unchanged, and get their token records.
func TestTokenRecordUpgrade(t *testing.T) {
	root, paths, st, ix := indexedTokenFixture(t)
	// Make the store look like an older gloss's: no token records.
	b := st.pdb().NewBatch()
	for _, p := range paths {
		rec, err := st.File(p)
		if err != nil || rec == nil {
			t.Fatal(p, err)
		}
		old := *rec
		old.Tokens = 0
		if err := putFile(b, rec, &old, nil); err != nil {
			t.Fatal(err)
		}
		deleteTokens(b, p)
	}
	if err := st.Commit(b, nil); err != nil {
		t.Fatal(err)
	}
	if f, ok := storedWithTokens(t, st, root, "a.go"); f == nil || ok {
		t.Fatalf("a.go: stored file %v with tokens %v before the upgrade run", f != nil, ok)
	}
	stats, err := ix.Run(context.Background(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Parsed != 0 || len(stats.Changed) != 0 || stats.Unchanged != len(paths) {
		t.Fatalf("upgrade run: parsed %d, changed %v, unchanged %d; want 0, none, %d", stats.Parsed, stats.Changed, stats.Unchanged, len(paths))
	}
	for _, p := range paths {
		if f, ok := storedWithTokens(t, st, root, p); f != nil && !ok {
			t.Errorf("%s: no tokens after the upgrade run", p)
		}
	}
	metas, err := st.FileMetas()
	if err != nil {
		t.Fatal(err)
	}
	for p, m := range metas {
		if m.Tokens != TokensVersion {
			t.Errorf("%s: token version %d after the upgrade run, want %d", p, m.Tokens, TokensVersion)
		}
	}
}

// TestDecodeTokensRejects checks that a token record of another version,
// another content or a damaged encoding is not used.
func TestDecodeTokensRejects(t *testing.T) {
	src := []byte("a bb  ccc\nd")
	hash := HashBytes(src)
	spans := []tokenSpan{{0, 1}, {2, 4}, {6, 9}, {10, 11}}
	data, err := encodeTokens(hash, spans)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := decodeTokens(data, hash, len(src)); !ok || err != nil || !reflect.DeepEqual(got.window(nil, 0, len(src)), spans) {
		t.Fatalf("round trip: %v %v %v", got, ok, err)
	}
	if _, ok, _ := decodeTokens(data, HashBytes([]byte("other")), len(src)); ok {
		t.Error("record of another content accepted")
	}
	other := append([]byte{TokensVersion + 1}, data[1:]...)
	if _, ok, _ := decodeTokens(other, hash, len(src)); ok {
		t.Error("record of another version accepted")
	}
	for cut := 34; cut < len(data); cut++ {
		if _, ok, err := decodeTokens(data[:cut], hash, len(src)); ok || err == nil {
			t.Errorf("record cut at %d bytes: ok %v, err %v", cut, ok, err)
		}
	}
	if _, ok, err := decodeTokens(data, hash, 5); ok || err == nil {
		t.Errorf("tokens past the end of the file: ok %v, err %v", ok, err)
	}
	if _, err := encodeTokens(hash, []tokenSpan{{4, 5}, {2, 3}}); err == nil {
		t.Error("tokens out of order encoded")
	}
}

// TestPackedTokensWindow checks that the window of a packed token stream
// (decodeTokens) is the tokens of the whole stream that end after its
// start and begin before its end, for windows inside, across and between
// the stream's marks, and at its edges.
func TestPackedTokensWindow(t *testing.T) {
	var src []byte
	var spans []tokenSpan
	for i := range 5*packedStride + 7 {
		if i%9 == 0 {
			src = append(src, "\n    "...) // gaps of several bytes
		}
		s := len(src)
		src = append(src, strings.Repeat("x", 1+i%4)...)
		spans = append(spans, tokenSpan{int32(s), int32(len(src))})
		if i%3 != 0 {
			src = append(src, ' ')
		}
	}
	hash := HashBytes(src)
	data, err := encodeTokens(hash, spans)
	if err != nil {
		t.Fatal(err)
	}
	p, ok, err := decodeTokens(data, hash, len(src))
	if !ok || err != nil {
		t.Fatalf("decode: %v %v", ok, err)
	}
	if len(p.data) >= 8*len(spans)/2 {
		t.Errorf("packed stream holds %d bytes for %d tokens, want under 4 per token", len(p.data), len(spans))
	}
	for start := 0; start <= len(src); start += 7 {
		for end := start; end <= len(src)+3; end += 13 {
			var want []tokenSpan
			for _, s := range spans {
				if int(s.end) > start && int(s.start) < end {
					want = append(want, s)
				}
			}
			if got := p.window(nil, start, end); !slices.Equal(got, want) {
				t.Fatalf("window [%d, %d): %v, want %v", start, end, got, want)
			}
		}
	}
	if got := p.window(nil, 0, len(src)); !slices.Equal(got, spans) {
		t.Fatalf("whole window: %d tokens, want %d", len(got), len(spans))
	}
}

// TestRestatedFilesLeaveRecordCache re-indexes files whose mtime changed
// but not their content (as after a checkout of another branch and back):
// the run counts them unchanged and rewrites their records, and the
// records it read to replace are not kept in the store's record cache
// (Store.replacedFile), where nothing would read them again.
func TestRestatedFilesLeaveRecordCache(t *testing.T) {
	root, paths, st, ix := indexedTokenFixture(t)
	touched := time.Now().Add(-30 * time.Minute)
	for _, p := range paths {
		if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(p)), touched, touched); err != nil {
			t.Fatal(err)
		}
	}
	before := st.records.Len()
	stats, err := ix.Run(context.Background(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Parsed != 0 || len(stats.Changed) != 0 || stats.Unchanged != len(paths) {
		t.Fatalf("re-stated run: parsed %d, changed %v, unchanged %d; want 0, none, %d", stats.Parsed, stats.Changed, stats.Unchanged, len(paths))
	}
	if n := st.records.Len(); n > before {
		t.Fatalf("record cache grew from %d to %d records over a run that replaced %d records", before, n, len(paths))
	}
	metas, err := st.FileMetas()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if m := metas[p]; m.ModTime != touched.UnixNano() {
			t.Errorf("%s: stored mtime %d, want the new %d", p, m.ModTime, touched.UnixNano())
		}
	}
}

// TestTokenRecordOverlappingLeaves parses Python strings whose escaped
// backslash ends a line, which gotreesitter reads as an escape sequence
// and a line continuation sharing a byte: the token stream must stay in
// order, so that the file gets a token record (without one every span
// anchor on it parses the file), and a window of the dropped-tree stream
// must answer as the tree walk does.
func TestTokenRecordOverlappingLeaves(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	for _, src := range []string{
		"s = \"\"\"x\\\\\ny\"\"\"\n",
		"s = \"\"\"x\\\\\\\\\ny\"\"\"\n",
		"s = \\\n\"\"\"\\\n / x\\\\\\\\\\\\\\\\\\\\\n | \\\\x /|\n\"\"\"\nt = 1\n",
	} {
		f, err := ix.ParseSource(map[*Language]*ts.Parser{}, LanguageByName("python"), "a.py", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.tokenRecord(); err != nil {
			t.Errorf("%q: %v", src, err)
		}
		var want [][]Token
		for s := 0; s < len(src); s++ {
			want = append(want, f.Tokens(s, len(src)))
		}
		f.DropTree()
		for s := range want {
			if got := f.Tokens(s, len(src)); !reflect.DeepEqual(got, want[s]) {
				t.Errorf("%q: Tokens(%d, end) after DropTree %v, want %v", src, s, got, want[s])
			}
		}
	}
}
