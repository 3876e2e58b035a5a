package index

import (
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// TestDropTreeTokens checks that a File whose trees were dropped answers
// Tokens exactly as the tree walk does, for line-aligned and arbitrary
// byte windows, in Go, Python, TypeScript and JavaScript sources.
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
			want[i] = f.Tokens(w.s, w.e)
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
