package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// TestReparseMatchesParse applies chains of random edits to the snapshot
// fixtures and checks that Reparse gives exactly what a full Parse gives:
// the same definitions (symbols, ranges, doc lines, hashes) and the same
// token stream.
func TestReparseMatchesParse(t *testing.T) {
	var files []string
	for _, pat := range []string{"testdata/snapshots/input/*/*/*.*", "testdata/snapshots/input/*/*/*/*.*"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	snippets := []string{"x", "1", " ", "\n", "// note\n", "(", ")", "{", "}", "\"s\"", "\n\nfunc Added() int { return 2 }\n", "\ndef added():\n    return 2\n", "\nfunction added() { return 2; }\n", "\tpass\n", "'", "/*", "*/", "#"}
	rng := rand.New(rand.NewSource(1))
	ix := &Indexer{Project: NewProject(t.TempDir())}
	parsers := map[*Language]*ts.Parser{}
	checked, reused := 0, 0
	type input struct {
		rel string
		src []byte
	}
	var inputs []input
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{strings.TrimPrefix(filepath.ToSlash(path), "testdata/snapshots/input/"), src})
	}
	// Larger files, where most edits re-parse a small region.
	var goSrc, pySrc, tsSrc strings.Builder
	goSrc.WriteString("package big\n\nimport \"fmt\"\n")
	for k := 0; k < 30; k++ {
		fmt.Fprintf(&goSrc, "\n// F%d does work.\nfunc F%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b + %d\n\t}\n\treturn fmt.Sprint(b) + \"x\"\n}\n\ntype T%d struct {\n\tA int // a\n}\n", k, k, k, k)
		fmt.Fprintf(&pySrc, "\n\ndef f%d(a, b):\n    \"\"\"Doc.\"\"\"\n    if a > b:\n        return a - b + %d\n    return b\n\n\nclass C%d:\n    x = 1\n\n    def m(self):\n        return %d\n", k, k, k, k)
		fmt.Fprintf(&tsSrc, "\n/** F%d. */\nexport function f%d(a: number, b: number): number {\n  if (a > b) {\n    return a - b + %d;\n  }\n  return b;\n}\n\nexport class C%d {\n  x = 1;\n  m(): number { return %d; }\n}\n", k, k, k, k, k)
	}
	inputs = append(inputs, input{"big/big.go", []byte(goSrc.String())}, input{"big/big.py", []byte(pySrc.String())}, input{"big/big.ts", []byte(tsSrc.String())})
	for _, in := range inputs {
		rel, src := in.rel, in.src
		lang := LanguageFor(rel)
		if lang == nil {
			continue
		}
		cur, err := ix.ParseSource(parsers, lang, rel, src)
		if err != nil {
			t.Fatal(err)
		}
		lean, err := ix.ParseSource(parsers, lang, rel, src)
		if err != nil {
			t.Fatal(err)
		}
		lean.DropTree()
		steps := 12
		if strings.HasPrefix(rel, "big/") {
			steps = 40
		}
		for step := 0; step < steps; step++ {
			s := cur.Src
			a := rng.Intn(len(s) + 1)
			b := min(len(s), a+rng.Intn(4))
			ins := snippets[rng.Intn(len(snippets))]
			if rng.Intn(3) == 0 {
				ins = ""
			}
			if strings.HasPrefix(rel, "big/") {
				// Syntax-preserving edits: change a digit, or insert a
				// comment line or a blank line at a line start.
				for k := 0; k < 200 && !(s[a%len(s)] >= '0' && s[a%len(s)] <= '9'); k++ {
					a = rng.Intn(len(s))
				}
				a %= len(s)
				b, ins = a+1, string(rune('0'+rng.Intn(10)))
				if rng.Intn(2) == 0 {
					for a > 0 && s[a-1] != '\n' {
						a--
					}
					b = a
					ins = map[string]string{"go": "// c\n", "python": "# c\n", "typescript": "// c\n"}[lang.Name]
					if rng.Intn(2) == 0 {
						ins = "\n"
					}
				}
			}
			next := append(append(append([]byte{}, s[:a]...), ins...), s[b:]...)
			got, err := ix.Reparse(parsers, cur, next)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ix.ParseSource(parsers, lang, rel, next)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.segs) > 1 {
				reused++
			}
			checked++
			if !reflect.DeepEqual(got.Defs, want.Defs) {
				t.Fatalf("%s step %d (edit %d-%d %q): definitions differ\n got %+v\nwant %+v", rel, step, a, b, ins, got.Defs, want.Defs)
			}
			if g, w := got.Tokens(0, len(next)), want.Tokens(0, len(next)); !reflect.DeepEqual(g, w) {
				t.Fatalf("%s step %d (edit %d-%d %q): tokens differ", rel, step, a, b, ins)
			}
			if got.HasError != want.HasError {
				t.Fatalf("%s step %d: HasError %v, want %v", rel, step, got.HasError, want.HasError)
			}
			checkRegions(t, ix, parsers, want, [2]int{a, a + len(ins)})
			// ReparseLean from the tree-less previous version agrees too.
			if lean, err = ix.ReparseLean(parsers, lean, next); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(lean.Defs, want.Defs) || lean.HasError != want.HasError || lean.segs != nil {
				t.Fatalf("%s step %d (edit %d-%d %q): ReparseLean definitions or HasError differ (or it kept trees)", rel, step, a, b, ins)
			}
			if g, w := lean.Tokens(0, len(next)), want.Tokens(0, len(next)); !reflect.DeepEqual(g, w) {
				t.Fatalf("%s step %d (edit %d-%d %q): ReparseLean tokens differ", rel, step, a, b, ins)
			}
			// Keep editing the reparsed file half the time, so segments stack.
			if rng.Intn(2) == 0 {
				cur = got
			} else {
				cur = want
			}
		}
	}
	t.Logf("%d edits checked, %d reparsed incrementally, %d by regions", checked, reused, regionsChecked)
	if checked == 0 || reused == 0 {
		t.Fatalf("nothing checked (%d) or reused (%d)", checked, reused)
	}
}

// FuzzReparse: for any edit of a Go file, Reparse must agree with a full
// parse (run `go test ./index -fuzz FuzzReparse` to explore; the seeds run
// with the normal tests).
func FuzzReparse(f *testing.F) {
	base := "package p\n\n// F does.\nfunc F(a int) int {\n\treturn a + 1\n}\n\ntype T struct{ X int }\n\nfunc (t T) M() string { return \"m\" }\n"
	f.Add(base, 20, 3, "x")
	f.Add(base, 0, 0, "// c\n")
	f.Add(base, 40, 10, "{")
	f.Add(base, len(base), 0, "\nfunc G() {}\n")
	ix := &Indexer{Project: NewProject(f.TempDir())}
	parsers := map[*Language]*ts.Parser{}
	lang := LanguageByName("go")
	f.Fuzz(func(t *testing.T, src string, at, del int, ins string) {
		if len(src) > 2000 || len(ins) > 100 || at < 0 || del < 0 || CheckContent([]byte(src+ins)) != "" {
			return // gloss never parses binary or invalid UTF-8 content
		}
		old, err := ix.ParseSource(parsers, lang, "p/a.go", []byte(src))
		if err != nil {
			return
		}
		at = min(at, len(src))
		end := min(len(src), at+del)
		next := []byte(src[:at] + ins + src[end:])
		got, err := ix.Reparse(parsers, old, next)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ix.ParseSource(parsers, lang, "p/a.go", next)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Defs, want.Defs) {
			t.Fatalf("definitions differ after edit %d-%d %q", at, end, ins)
		}
		if !reflect.DeepEqual(got.Tokens(0, len(next)), want.Tokens(0, len(next))) {
			t.Fatalf("tokens differ after edit %d-%d %q", at, end, ins)
		}
	})
}

// checkRegions: ParseRegions of an edited file around the edit sp gives
// the definitions of the full parse want that overlap the edit, each as
// the full parse has it, and no others.
func checkRegions(t *testing.T, ix *Indexer, parsers map[*Language]*ts.Parser, want *File, sp [2]int) {
	t.Helper()
	got, ok, err := ix.ParseRegions(parsers, want.Lang, want.Path, want.Src, [][2]int{sp}, testChunkMemo)
	if err != nil || !ok {
		return // not Go, or the file is parsed whole
	}
	regionsChecked++
	all := map[string]Definition{} // an edit may make two definitions of one symbol
	for _, d := range want.Defs {
		all[fmt.Sprint(d.Symbol, d.Range.StartByte)] = d
	}
	seen := map[string]bool{}
	for _, d := range got.Defs {
		key := fmt.Sprint(d.Symbol, d.Range.StartByte)
		seen[key] = true
		w, ok := all[key]
		if !ok || w.ContentHash != d.ContentHash || w.Range != d.Range || w.BodyHash != d.BodyHash || w.SignatureHash != d.SignatureHash || w.Doc != d.Doc || w.DocLine != d.DocLine {
			t.Fatalf("%s: ParseRegions around %v: %s %+v, full parse %+v", want.Path, sp, d.Symbol, d.Range, w.Range)
		}
	}
	for _, d := range want.Defs {
		if d.Range.StartByte < sp[1] && sp[0] < d.Range.EndByte && d.Parent == "" && !seen[fmt.Sprint(d.Symbol, d.Range.StartByte)] {
			t.Fatalf("%s: ParseRegions around %v misses %s", want.Path, sp, d.Symbol)
		}
	}
}

var regionsChecked int

// testChunkMemo is shared by every checkRegions call, so that chunks
// parsed for one edit are reused (ChunkMemo) for the next.
var testChunkMemo = NewChunkMemo(1 << 20)
