package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// recordMismatch returns how the index records of src made by the Go fast
// path (fast) and by tree-sitter (tree) differ ("" when they agree): the
// file record (definitions, calls, imports with targets, error flag) as
// stored, and the token record byte for byte.
func recordMismatch(tree, fast *FileRecord, treeToks, fastToks []byte) string {
	if len(tree.Calls) != len(fast.Calls) || !reflect.DeepEqual(tree.Calls, fast.Calls) {
		for i := range min(len(tree.Calls), len(fast.Calls)) {
			if tree.Calls[i] != fast.Calls[i] {
				return fmt.Sprintf("call %d: got %+v, want %+v", i, fast.Calls[i], tree.Calls[i])
			}
		}
		return fmt.Sprintf("%d calls, want %d", len(fast.Calls), len(tree.Calls))
	}
	if !reflect.DeepEqual(tree.Imports, fast.Imports) {
		return fmt.Sprintf("imports %v, want %v", fast.Imports, tree.Imports)
	}
	tj, _ := json.Marshal(tree)
	fj, _ := json.Marshal(fast)
	if !bytes.Equal(tj, fj) {
		return fmt.Sprintf("file record:\n\tgot  %s\n\twant %s", fj, tj)
	}
	if !bytes.Equal(treeToks, fastToks) {
		return fmt.Sprintf("token record: %d bytes, want %d", len(fastToks), len(treeToks))
	}
	return ""
}

// TestIndexRecordGoFast checks that an index run stores the same records
// for a Go file whether it parses it with the fast path (go/parser and
// go/scanner, parseGoFast with calls and imports) or with tree-sitter:
// the file record (definitions, calls with callers and lines, imports
// with resolved targets, error flag) and the token record are identical,
// on hand-written cases (calls in every position, method chains,
// conversions, generic calls, function literals, imports of workspace
// packages) and on the Go files of GOROOT/src (one in 24 by default,
// every file with GLOSS_GOFAST_ALL=1). Files tree-sitter parses with an
// error are left out and logged (the index then stores the fast path's
// records, which go/parser vouches for); files the fast path refuses are
// counted (they are parsed with tree-sitter). One difference is allowed
// and logged: a call of a name with one argument that tree-sitter reads
// as a conversion to that type name (it reads the same shape as a call
// elsewhere), where the fast path has the call.
func TestIndexRecordGoFast(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"sub", "p"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"calls.go": "package p\n\nimport (\n\t\"fmt\"\n\tstr \"strings\"\n\t\"example.com/m/sub\"\n\t\"example.com/m/missing\"\n\t\"fmt\"\n)\n\nvar v = fmt.Sprint(len(\"x\"))\n\nfunc F(xs []int) (n int) {\n\tdefer func() { recover() }()\n\tgo g(h(1), str.ToUpper(fmt.Sprint(2)))\n\tb := []byte(\"s\")\n\t_ = (*T)(nil)\n\t_ = T(3).M().N()\n\t_ = interface{}(b)\n\tf := func(a int) int { return a }\n\t_ = f(4)\n\t_ = sub.X{}.Y(new(int), make([]int, 0))\n\tfor _, x := range xs {\n\t\tif ok := check(x); ok {\n\t\t\tn += x\n\t\t}\n\t}\n\treturn (g)(5)\n}\n\ntype T int\n\nfunc (t T) M() T { return t.clone() }\n\ntype S struct {\n\tA [len(\"abc\")]int\n}\n",
		"semi.go":  "package p; import \"fmt\"; func G() { fmt.Println(1); return }\n",
		// Calls with an index: explicit type arguments (one, two, a
		// qualified type, a pointer, an instantiated type, a slice type),
		// calls of a slice's element (an identifier index: read as F[T];
		// a literal or an operation: no name), conversions to named and
		// generic types, in statements, assignments, declarations, go and
		// defer.
		"generic.go": "package p\n\nimport (\n\t\"reflect\"\n\t\"time\"\n)\n\nfunc F[T any](x T) T { return x }\n\nfunc G[T, U any]() {}\n\ntype L[T any] []T\n\ntype N int\n\nvar tt = reflect.TypeFor[time.Time]()\n\nvar fns []func(int)\n\nfunc H(i int, m map[string]func()) {\n\tF[int](1)\n\t_ = F[*N](nil)\n\tG[int, string]()\n\t_ = reflect.TypeFor[L[int]]()\n\t_ = F[[]byte](nil)\n\tfns[i](2)\n\tfns[0](3)\n\tfns[i+1](4)\n\tm[\"k\"]()\n\t_ = N(5)\n\t_ = L[int](nil)\n\t_ = time.Duration(6)\n\tgo F[string](\"x\")\n\tdefer G[N, *N]()\n\tx := F[reflect.Value](reflect.ValueOf(F[int](7)))\n\t_ = x\n}\n",
	}
	ix := &Indexer{Root: root, Project: NewProject(root)}
	ps := map[*Language]*ts.Parser{}
	lang := LanguageFor("a.go")
	check := func(rel string, src []byte) (compared, refused, tsErr bool) {
		t.Helper()
		tree := &FileRecord{Path: rel}
		ix.noGoFast = true
		treeToks, err := ix.parseRecord(ps, lang, src, tree, nil)
		ix.noGoFast = false
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if _, ok := ix.parseGoFast(lang, rel, src, true); !ok {
			return false, true, tree.HasError
		}
		fast := &FileRecord{Path: rel}
		fastToks, err := ix.parseRecord(ps, lang, src, fast, nil)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if tree.HasError {
			// Valid Go (go/parser) on which tree-sitter stops with an
			// error: the index stores the fast path's records.
			t.Logf("%s: tree-sitter error on valid Go: %d definitions, fast path %d", rel, len(tree.Defs), len(fast.Defs))
			return false, false, true
		}
		if m := recordMismatch(tree, fast, treeToks, fastToks); m != "" {
			t.Errorf("%s: %s", rel, m)
		}
		return true, false, false
	}
	for name, src := range cases {
		if compared, _, _ := check("p/"+name, []byte(src)); !compared {
			t.Errorf("%s: not compared (fast path refused it or tree-sitter found an error)", name)
		}
	}
	// encoding/csv/fuzz_test.go: tree-sitter reads f.Fuzz(func…) as a
	// conversion (Go 1.26.8). Files with a call with an index ("](": 438
	// of GOROOT/src's) were refused by the fast path until such calls were
	// read as tree-sitter's readings are mapped (goFastCallee,
	// extractor.calleeName): a quarter of them (by CRC-32 of the path) are
	// compared besides the sample, all of them with GLOSS_GOFAST_ALL=1.
	always := func(rel string, src []byte) bool {
		return rel == "encoding/csv/fuzz_test.go" || crc32.ChecksumIEEE([]byte(rel))%4 == 0 && bytes.Contains(src, []byte("]("))
	}
	n, _, refused, tsErr := checkGorootSample(t, always, check)
	t.Logf("GOROOT/src: %d files compared, %d refused by the fast path, %d with tree-sitter errors", n, refused, tsErr)
	if n < 100 {
		t.Errorf("only %d files compared", n)
	}
}

// storeDump returns every key and value of st, with the indexing time
// of file records and metadata zeroed (the one field two runs on the
// same files may not share).
// runSameStore runs ixs[0] and ixs[1] (the reference and the path under
// test, labelled names in messages) with opts[0] and opts[1] and fails t
// unless their Stats (Elapsed aside) are equal, something was parsed,
// the reference store holds at least 1,000 keys and both stores hold the
// same keys and values (storeDump), naming the first that differs.
func runSameStore(t *testing.T, step string, names [2]string, ixs [2]*Indexer, opts [2]RunOptions) {
	t.Helper()
	var sts [2]Stats
	for i, ix := range ixs {
		st, err := ix.Run(context.Background(), opts[i])
		if err != nil {
			t.Fatal(err)
		}
		st.Elapsed = 0
		sts[i] = st
	}
	if !reflect.DeepEqual(sts[0], sts[1]) {
		t.Errorf("%s: stats differ:\n\t%s %+v\n\t%s %+v", step, names[0], sts[0], names[1], sts[1])
	}
	if sts[1].Parsed == 0 {
		t.Fatalf("%s: nothing parsed", step)
	}
	want, got := storeDump(t, ixs[0].Store), storeDump(t, ixs[1].Store)
	if len(want) < 1000 {
		t.Fatalf("%s: only %d keys", step, len(want))
	}
	if !reflect.DeepEqual(want, got) {
		for i := range min(len(want), len(got)) {
			if want[i] != got[i] {
				t.Fatalf("%s: key %d:\n\t%s %.300s\n\t%s %.300s", step, i, names[1], got[i], names[0], want[i])
			}
		}
		t.Fatalf("%s: %d keys, want %d", step, len(got), len(want))
	}
}

func storeDump(t *testing.T, st *Store) []string {
	t.Helper()
	it, err := st.pdb().NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for it.First(); it.Valid(); it.Next() {
		k, v := string(it.Key()), it.Value()
		if p := k[:1]; len(k) > 1 && k[1] == 0 && (p == prefixFile || p == prefixFileMeta) {
			var m map[string]any
			if err := json.Unmarshal(v, &m); err != nil {
				t.Fatalf("%q: %v", k, err)
			}
			delete(m, "indexed")
			v, _ = json.Marshal(m)
		}
		out = append(out, fmt.Sprintf("%q\t%q", k, v))
	}
	return out
}

// TestIndexRunGoFastSameStore indexes a workspace (this package's Go
// sources, a file calling a generic function with type arguments and one
// with a syntax error, which go to tree-sitter, and a Python file) into
// two stores, one run parsing Go with the fast path and one with
// tree-sitter only, and checks that the stores hold the same keys and
// values; then edits, adds and removes files and checks the re-index
// runs keep them identical.
func TestIndexRunGoFastSameStore(t *testing.T) {
	root, write := sourcesWorkspace(t)
	write("gen/gen.go", "package gen\n\nimport \"reflect\"\n\nvar T = reflect.TypeFor[int]()\n\nfunc Map[T any](x T) T { return x }\n\nfunc Use() int { return Map[int](1) + Map(2) }\n")
	write("bad/bad.go", "package bad\n\nfunc Good() int { return f(1) }\n\nfunc Broken( {\n")
	write("py/app.py", "import os\n\ndef run():\n    return os.getcwd()\n")
	stores := map[bool]*Store{}
	ixs := map[bool]*Indexer{}
	for _, noFast := range []bool{true, false} {
		st, err := OpenStore(filepath.Join(t.TempDir(), "pebble"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores[noFast] = st
		ixs[noFast] = &Indexer{Root: root, Store: st, Project: NewProject(root), noGoFast: noFast}
	}
	compare := func(step string) {
		t.Helper()
		runSameStore(t, step, [2]string{"tree-sitter", "fast path"}, [2]*Indexer{ixs[true], ixs[false]}, [2]RunOptions{})
	}
	compare("cold index")
	// A re-index after edits: one file changed, one added, one removed.
	write("gen/gen.go", "package gen\n\nfunc Use() int { return Other(1) }\n\n// Other is new.\nfunc Other(x int) int { return x }\n")
	write("gen/more.go", "package gen\n\nimport \"example.com/m/index\"\n\nvar _ = index.HashBytes(nil)\n")
	if err := os.Remove(filepath.Join(root, "bad/bad.go")); err != nil {
		t.Fatal(err)
	}
	compare("re-index")
}
