package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
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
// error are left out (the index then stores the fast path's records,
// which go/parser vouches for); files the fast path refuses are counted
// (they are parsed with tree-sitter).
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
	}
	ix := &Indexer{Root: root, Project: NewProject(root)}
	ps := map[*Language]*ts.Parser{}
	lang := LanguageFor("a.go")
	check := func(rel string, src []byte) (compared, refused, tsErr bool) {
		t.Helper()
		tree := &FileRecord{Path: rel}
		ix.noGoFast = true
		treeToks, err := ix.parseRecord(ps, lang, src, tree)
		ix.noGoFast = false
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if _, ok := ix.parseGoFast(lang, rel, src, true); !ok {
			return false, true, tree.HasError
		}
		if tree.HasError {
			return false, false, true
		}
		fast := &FileRecord{Path: rel}
		fastToks, err := ix.parseRecord(ps, lang, src, fast)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
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
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command to find GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no GOROOT sources: %v", err)
	}
	all := os.Getenv("GLOSS_GOFAST_ALL") != ""
	var n, refused, tsErr int
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		h := fnv.New32a()
		h.Write([]byte(p))
		if !all && h.Sum32()%24 != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 1<<20 || CheckContent(b) != "" {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		c, r, e := check(filepath.ToSlash(rel), b)
		if c {
			n++
		}
		if r {
			refused++
		}
		if e {
			tsErr++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GOROOT/src: %d files compared, %d refused by the fast path, %d with tree-sitter errors", n, refused, tsErr)
	if n < 100 {
		t.Errorf("only %d files compared", n)
	}
}
