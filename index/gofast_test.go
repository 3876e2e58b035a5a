package index

import (
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

// fastMismatch returns how ParseGoFast's File differs from Parse's
// followed by DropTree ("" when they agree): definitions (every field)
// and the whole token stream.
func fastMismatch(want, got *File) string {
	wt, gt := want.Tokens(0, len(want.Src)), got.Tokens(0, len(got.Src))
	for i := range min(len(wt), len(gt)) {
		if wt[i] != gt[i] {
			return fmt.Sprintf("token %d: got %q at %d, want %q at %d", i, gt[i].Text, gt[i].Start, wt[i].Text, wt[i].Start)
		}
	}
	if len(wt) != len(gt) {
		return fmt.Sprintf("%d tokens, want %d", len(gt), len(wt))
	}
	if len(want.Defs) != len(got.Defs) {
		return fmt.Sprintf("%d definitions, want %d:\n\tgot  %v\n\twant %v", len(got.Defs), len(want.Defs), defNames(got), defNames(want))
	}
	for i := range want.Defs {
		if !reflect.DeepEqual(want.Defs[i], got.Defs[i]) {
			return fmt.Sprintf("definition %d:\n\tgot  %+v\n\twant %+v", i, got.Defs[i], want.Defs[i])
		}
	}
	if got.goPkg != want.goPkg || got.SrcHash() != want.SrcHash() {
		return "package name or source hash"
	}
	return ""
}

// TestParseGoFastMatchesParse checks that ParseGoFast gives exactly what
// a tree-sitter Parse (then DropTree) gives, on hand-written cases (string
// escapes, raw strings, explicit semicolons, doc comments, grouped
// declarations, embedded and nested fields, generics, CRLF line ends) and
// on the Go files of GOROOT/src: a sample of one file in 24 by default,
// every file with GLOSS_GOFAST_ALL=1. Files tree-sitter parses with an
// error are left out (the import then uses the fast path's result, which
// go/parser vouches for); files the fast path refuses are counted.
func TestParseGoFastMatchesParse(t *testing.T) {
	cases := map[string]string{
		"strings.go": "package p\n\nvar s = \"a b\\n\\tc\\x41ab\\u00e9xy\\U0001F600\\101\\\\\\\"q\"\nvar r = `raw\n text` + `` + \"\"\nvar c, d = 'x', '\\n'\n",
		"semi.go":    "package p; import \"fmt\"; func F() { fmt.Println(1); return }; type T struct { A int; B, C string `json:\"c\"` }\n",
		"doc.go":     "package p\n\n// A is a.\n// More.\nconst A = 1\n\n/* B\n * is b. */\nvar B = 2 // trailing\n// C is c.\nvar C int\n\n// group\nconst (\n\t// D is d.\n\tD = iota // d\n\t// E is e.\n\tE\n\n\t// F is f.\n\tF, G = 1, 2\n\t_ = 3\n)\n\ntype (\n\t// H is h.\n\tH int\n\tI = H\n)\n\n// J is j.\ntype J struct { // open\n\t// K is k.\n\tK int // k\n\tL, M struct {\n\t\t// N is n.\n\t\tN []struct{ O int }\n\t}\n\t*P\n\tfmt.Stringer\n\tQ[int]\n\t*R[int, string] `tag`\n}\n\n// S is s.\ntype S interface {\n\t// T is t.\n\tT(a int) (b int, err error)\n\tfmt.Stringer\n\t~int | string\n\tU()\n}\n",
		"generic.go": "package p\n\ntype List[T any] struct{ next *List[T]; v T }\n\nfunc (l *List[T]) Push(v T) {}\nfunc (l List[T]) Len() int { return 0 }\nfunc (_ *Map[K, V]) Get(k K) V { var v V; return v }\nfunc (Map[K, V]) Set() {}\nfunc _() {}\nfunc Asm(x int) int\nfunc G[T interface{ ~int }](x T) T { return x }\n",
		"crlf.go":    "package p\r\n\r\n// A is a.\r\n/* block\r\n   doc */\r\nfunc A() string {\r\n\treturn `x\r\ny`\r\n}\r\n\r\n/*\r\n\r\n\r\nB\r\n\r\n\r\n\r\n*/\r\nvar B = 1\r\n",
	}
	ix := &Indexer{Project: NewProject(t.TempDir())}
	ps := map[*Language]*ts.Parser{}
	lang := LanguageFor("a.go")
	check := func(rel string, src []byte) (compared, refused, tsErr bool) {
		t.Helper()
		want, err := ix.ParseSource(ps, lang, rel, src)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		want.DropTree()
		got, ok := ix.ParseGoFast(lang, rel, src)
		switch {
		case !ok:
			return false, true, want.HasError
		case want.HasError:
			return false, false, true
		}
		if m := fastMismatch(want, got); m != "" {
			t.Errorf("%s: %s", rel, m)
		}
		return true, false, false
	}
	for name, src := range cases {
		if compared, _, _ := check("p/"+name, []byte(src)); !compared {
			t.Errorf("%s: not compared (fast path refused it or tree-sitter found an error)", name)
		}
	}
	n, bytes, refused, tsErr := checkGorootSample(t, nil, check)
	t.Logf("GOROOT/src: %d files (%d bytes) compared, %d refused by the fast path, %d with tree-sitter errors", n, bytes, refused, tsErr)
	if n < 100 {
		t.Errorf("only %d files compared", n)
	}
}

// checkGorootSample calls check(rel, src) on the Go files of GOROOT/src
// (rel slash-separated, relative to GOROOT/src): all of them when
// $GLOSS_GOFAST_ALL is set, else one in 24 by an FNV hash of the path,
// plus those for which always(rel, src) is true (always may be nil); files
// over 1 MiB or that CheckContent refuses are left out. check reports
// whether it compared the file, whether the fast path refused it and
// whether tree-sitter found an error; checkGorootSample returns those
// counts and the bytes of the compared files. It skips the test when
// GOROOT/src cannot be found.
func checkGorootSample(t *testing.T, always func(rel string, src []byte) bool, check func(rel string, src []byte) (compared, refused, tsErr bool)) (n, size, refused, tsErr int) {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command to find GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no GOROOT sources: %v", err)
	}
	all := os.Getenv("GLOSS_GOFAST_ALL") != ""
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		h := fnv.New32a()
		h.Write([]byte(p))
		sampled := all || h.Sum32()%24 == 0
		if !sampled && always == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 1<<20 || CheckContent(src) != "" {
			return nil
		}
		if !sampled && !always(rel, src) {
			return nil
		}
		c, r, e := check(rel, src)
		if c {
			n++
			size += len(src)
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
	return n, size, refused, tsErr
}

func defNames(f *File) []string {
	var out []string
	for _, d := range f.Defs {
		out = append(out, d.Name)
	}
	return out
}

// TestSameTokens: files differing in comments and whitespace only have the
// same tokens, with compact tokens (ParseGoFast, DropTree) or syntax
// trees; a changed token or one more token makes them differ.
func TestSameTokens(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	ps := map[*Language]*ts.Parser{}
	lang := LanguageFor("a.go")
	base := "package p\n\nfunc F() string { return \"a\\tb\" }\n"
	for _, c := range []struct {
		src  string
		same bool
	}{
		{"package p\n// c\nfunc F() string {\n\treturn \"a\\tb\" // d\n}\n", true},
		{"package p\n\nfunc F() string { return \"a\\tc\" }\n", false},
		{"package p\n\nfunc F() string { return \"a\\tb\"; }\n", false},
	} {
		a, _ := ix.ParseGoFast(lang, "p/a.go", []byte(base))
		b, ok := ix.ParseGoFast(lang, "p/a.go", []byte(c.src))
		if !ok {
			t.Fatalf("%q: fast path refused", c.src)
		}
		tree, err := ix.ParseSource(ps, lang, "p/a.go", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := SameTokens(a, b); got != c.same {
			t.Errorf("%q: SameTokens (compact) = %v, want %v", c.src, got, c.same)
		}
		if got := SameTokens(a, tree); got != c.same {
			t.Errorf("%q: SameTokens (with a tree) = %v, want %v", c.src, got, c.same)
		}
		tree.Release()
	}
}
