package index

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// walkedTokens is File.Tokens by the tree walk, whatever stream f keeps.
func walkedTokens(f *File, start, end int) []Token {
	start, end = max(start, 0), min(end, len(f.Src))
	var out []Token
	f.walkTokens(start, end, func(s, e int) {
		out = append(out, Token{Text: string(f.Src[s:e]), Start: s, End: e})
	})
	return out
}

// TestDropTreeTokens checks that a File answers Tokens exactly as the tree
// walk does, from the stream Parse took (File.stream) and after its trees
// were dropped, for line-aligned and arbitrary byte windows, in Go,
// Python, TypeScript and JavaScript sources.
func TestDropTreeTokens(t *testing.T) {
	srcs := map[string]string{
		"a.go": "package a\n\n// F doc.\nfunc F(x int) string {\n\ts := `raw\nmulti line`\n\treturn s + \"q\" // c\n}\n\ntype T struct{ A, B int }\n",
		"b.py": "def f(x):\n    \"\"\"Doc\n    string.\"\"\"\n    s = '''a\n b'''\n    return x + 1  # c\n\nclass C:\n    pass\n",
		"c.ts": "export function g(a: number): string {\n  const s = `t ${a}\n  u`;\n  return s; /* c\n d */\n}\n",
		"d.js": "const h = (a) => {\n  return a * 2;\n};\n",
	}
	if src, err := os.ReadFile(filepath.Join("extract.go")); err == nil {
		srcs["extract.go"] = string(src)
	}
	rng := rand.New(rand.NewSource(1))
	parsers := map[*Language]*ts.Parser{}
	ix := &Indexer{Project: NewProject(t.TempDir())}
	for name, src := range srcs {
		lang := LanguageFor(name)
		f, err := ix.ParseSource(parsers, lang, name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		type window struct{ s, e int }
		var ws []window
		n := f.Lines.Count()
		for i := 0; i < 200; i++ {
			a := rng.Intn(n)
			b := a + rng.Intn(min(5, n-a))
			r := f.Lines.LineRange(a, b)
			ws = append(ws, window{r.StartByte, r.EndByte})
			x := rng.Intn(len(src))
			ws = append(ws, window{x, x + rng.Intn(200)})
		}
		ws = append(ws, window{0, len(src)}, window{-5, len(src) + 5})
		want := make([][]Token, len(ws))
		for i, w := range ws {
			want[i] = walkedTokens(f, w.s, w.e)
			if got := f.Tokens(w.s, w.e); !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("%s: Tokens(%d, %d) from the parse's stream:\n got %v\nwant %v", name, w.s, w.e, got, want[i])
			}
		}
		hash := HashBytes(f.Src)
		f.DropTree()
		if f.SrcHash() != hash {
			t.Errorf("%s: SrcHash %s, want %s", name, f.SrcHash(), hash)
		}
		for i, w := range ws {
			if got := f.Tokens(w.s, w.e); !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("%s: Tokens(%d, %d) after DropTree:\n got %v\nwant %v", name, w.s, w.e, got, want[i])
			}
		}
	}
}

// TestParseStreamSameRecords checks that taking definitions' tokens from
// the stream Parse computes once (File.stream) gives exactly the
// definitions, calls, imports and token record of the tree walk per
// definition (the language marked walkDefs), on this package's Go
// sources, on TypeScript and JavaScript sources, and on Python sources
// whose docstrings extraction leaves out (module, class, method,
// function, nested class; a class's hash keeps its methods' docstrings).
func TestParseStreamSameRecords(t *testing.T) {
	srcs := map[string][]byte{
		"c.ts":  []byte("export class K<T> extends B implements I {\n  @dec() m(a: T): void { this.x = `t ${a}`; }\n  get y() { return 1 }\n}\nexport const f = async (a: number) => a * 2;\ninterface I { a: string; b(): void }\n"),
		"d.js":  []byte("const h = (a) => {\n  return a * 2;\n};\nclass C { m() { return `x ${h(1)}` } }\nfunction g() { /* c */ return 1 }\n"),
		"e.tsx": []byte("export function App(p: {a: string}) { return <div className=\"x\">{p.a}</div>; }\n"),
	}
	srcs["f.py"] = []byte(pySample)
	for _, n := range []string{"testdata/snapshots/input/py/src/shop/cart.py", "testdata/snapshots/input/py/src/shop/__init__.py"} {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		srcs[n] = src
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		srcs[n] = src
	}
	ix := &Indexer{Project: NewProject(t.TempDir())}
	parse := func(name string, src []byte, walk bool) (*File, []byte) {
		lang := LanguageFor(name)
		old := lang.walkDefs
		lang.walkDefs = walk
		defer func() { lang.walkDefs = old }()
		f, err := ix.ParseSource(map[*Language]*ts.Parser{}, lang, name, src)
		if err != nil {
			t.Fatal(err)
		}
		if (f.stream != nil) == walk {
			t.Fatalf("%s: stream kept %v with walk %v", name, f.stream != nil, walk)
		}
		rec, err := f.tokenRecord()
		if err != nil {
			t.Fatal(err)
		}
		return f, rec
	}
	for name, src := range srcs {
		got, gotRec := parse(name, src, false)
		want, wantRec := parse(name, src, true)
		if len(want.Defs) == 0 && name != "doc.go" {
			t.Errorf("%s: no definitions", name)
		}
		if !reflect.DeepEqual(got.Defs, want.Defs) || !reflect.DeepEqual(got.Calls, want.Calls) || !reflect.DeepEqual(got.Imports, want.Imports) {
			t.Errorf("%s: definitions, calls or imports differ between the stream and the tree walk", name)
		}
		if !reflect.DeepEqual(gotRec, wantRec) {
			t.Errorf("%s: token records differ", name)
		}
		got.Release()
		want.Release()
	}
}

// pySample has docstrings everywhere extraction looks for them, a
// comment before one, string concatenation and a nested function whose
// docstring stays in the tokens.
const pySample = `"""Module doc."""
import os

class A(B):
    '''Class doc.'''
    x = 1

    @dec
    def m(self, a):
        """Method doc."""
        return f(a) + 'a' 'b'

    class Inner:
        "doc" "more"
        def n(self): pass

def g():
    # comment
    r"""Raw doc."""
    def h():
        """Nested, kept."""
    return h

Y = g()
`
