package index

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// changedFuncDefs counts, from whole tree-sitter parses, the function and
// method definitions of newSrc whose symbol and content hash no
// definition of oldSrc has: what GoChangedFuncs bounds from below.
func changedFuncDefs(t *testing.T, ix *Indexer, ps map[*Language]*ts.Parser, oldSrc, newSrc []byte) int {
	t.Helper()
	lang := LanguageFor("p/a.go")
	before := map[string]bool{}
	if oldSrc != nil {
		old, err := ix.ParseSource(ps, lang, "p/a.go", oldSrc)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range old.Defs {
			before[d.Symbol+" "+d.ContentHash] = true
		}
		old.Release()
	}
	f, err := ix.ParseSource(ps, lang, "p/a.go", newSrc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	n := 0
	for _, d := range f.Defs {
		if (d.Kind == KindFunction || d.Kind == KindMethod) && !before[d.Symbol+" "+d.ContentHash] {
			n++
		}
	}
	return n
}

const goFuncsSrc = `package p

import "fmt"

// A is a.
func A() int { return 1 }

func (s *S) M() interface{} {
	return nil
}

func (S) N() struct{ X int } { return struct{ X int }{1} }

func G[T any](x T) T { return x }

func (l *List[T]) Push(v T) { l.v = append(l.v, v) }

func _() {}

type S struct{ a int }

type List[T any] struct{ v []T }

var f = func() int { return 2 }

func B() string {
	return fmt.Sprint(` + "`raw\n{`" + `)
}
`

// TestGoChangedFuncs: edits of one function count 1, comment and
// whitespace edits 0, an added file all its functions, and for random
// edits of real files the count is never above the changed function and
// method definitions of whole tree-sitter parses.
func TestGoChangedFuncs(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	ps := map[*Language]*ts.Parser{}
	src := []byte(goFuncsSrc)
	cases := []struct {
		name, from, to string
		want           int
	}{
		{"body", "return 1 }", "return 10 }", 1},
		{"method with interface{} result", "return nil", "return s", 1},
		{"struct result", "{1} }", "{2} }", 1},
		{"generic receiver", "append(l.v, v)", "append(l.v, v, v)", 1},
		{"comment", "// A is a.", "// A is one.", 0},
		{"whitespace", "return 1 }", "return   1\n}", 0},
		{"blank name", "func _() {}", "func _() { _ = 1 }", 0},
		{"func literal in a var", "return 2 }", "return 3 }", 0},
		{"raw string", "`raw\n{`", "`raw\n{{`", 1},
		{"two functions", "return 1 }", "return 1 }\n\nfunc C() {}\n\nfunc D() {}", 2},
	}
	for _, c := range cases {
		next := []byte(strings.Replace(goFuncsSrc, c.from, c.to, 1))
		got, full := GoChangedFuncs(src, next), changedFuncDefs(t, ix, ps, src, next)
		if got != c.want || full != c.want {
			t.Errorf("%s: GoChangedFuncs %d, whole parses %d; want %d", c.name, got, full, c.want)
		}
	}
	if got, full := GoChangedFuncs(nil, src), changedFuncDefs(t, ix, ps, nil, src); got != 6 || full != 6 {
		t.Errorf("added file: GoChangedFuncs %d, whole parses %d; want 6", got, full)
	}
	files, _ := filepath.Glob("testdata/snapshots/input/*/*/*.go")
	rng := rand.New(rand.NewSource(1))
	snippets := []string{"x", "1", " ", "\n", "// c\n", "(", ")", "{", "}", "\"s\"", "`", "\nfunc Z() {}\n"}
	for _, path := range append(files, "") {
		base := []byte(goFuncsSrc)
		if path != "" {
			var err error
			if base, err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		for range 40 {
			at := rng.Intn(len(base) + 1)
			next := append(append(append([]byte(nil), base[:at]...), snippets[rng.Intn(len(snippets))]...), base[at:]...)
			if got, full := GoChangedFuncs(base, next), changedFuncDefs(t, ix, ps, base, next); got > full {
				t.Errorf("%s, edit at %d: GoChangedFuncs %d > %d changed definitions", path, at, got, full)
			}
		}
	}
}
