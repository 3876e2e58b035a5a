package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// bigGo is a Go file of n functions with doc comments.
func bigGo(n int) string {
	var b strings.Builder
	b.WriteString("package big\n")
	for k := 0; k < n; k++ {
		fmt.Fprintf(&b, "\n// F%d does work.\nfunc F%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b + %d\n\t}\n\treturn b\n}\n", k, k, k)
	}
	return b.String()
}

// TestReparseTolerant types a statement into one function character by
// character, so that most versions do not parse: each version is re-parsed
// from the last clean one (one region, not the whole file), the
// definitions of every other function are exactly those of a full parse of
// the clean file, moved by the edit, and the version that parses again is
// exactly its full parse.
func TestReparseTolerant(t *testing.T) {
	ix := &Indexer{Project: NewProject(t.TempDir())}
	parsers := map[*Language]*ts.Parser{}
	lang := LanguageFor("big.go")
	src := bigGo(40)
	clean, err := ix.ParseSource(parsers, lang, "big.go", []byte(src))
	if err != nil || clean.HasError {
		t.Fatalf("clean parse: %v %v", err, clean.HasError)
	}
	at := strings.Index(src, "func F20(") + len("func F20(a, b int) int {\n")
	typed := "\tif (a > 2 {\n\t\tb++\n\t}\n"
	cur := clean
	broken := 0
	for i := 1; i <= len(typed); i++ {
		next := src[:at] + typed[:i] + src[at:]
		got, err := ix.ReparseTolerant(parsers, cur, []byte(next))
		if err != nil {
			t.Fatal(err)
		}
		if !got.HasError {
			continue
		}
		broken++
		if got.base != clean {
			t.Fatalf("version %d: not re-parsed from the last clean parse", i)
		}
		if len(got.segs) < 2 {
			t.Fatalf("version %d: parsed in full", i)
		}
		byName := map[string]Definition{}
		for _, d := range got.Defs {
			byName[d.Symbol] = d
		}
		for _, d := range clean.Defs {
			if strings.Contains(d.Symbol, "F20") {
				continue
			}
			g, ok := byName[d.Symbol]
			if !ok {
				t.Fatalf("version %d: %s lost", i, d.Symbol)
			}
			if g.BodyHash != d.BodyHash || g.SignatureHash != d.SignatureHash {
				t.Fatalf("version %d: %s changed", i, d.Symbol)
			}
			if d.Range.StartByte > at && g.Range.StartByte != d.Range.StartByte+i {
				t.Fatalf("version %d: %s at byte %d, want %d", i, d.Symbol, g.Range.StartByte, d.Range.StartByte+i)
			}
		}
		cur = got
	}
	if broken == 0 {
		t.Fatal("no version had a syntax error: the test proves nothing")
	}
	// The statement fixed: exactly the full parse.
	fixed := src[:at] + strings.Replace(typed, "(a > 2", "a > 2", 1) + src[at:]
	got, err := ix.ReparseTolerant(parsers, cur, []byte(fixed))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ix.ParseSource(parsers, lang, "big.go", []byte(fixed))
	if err != nil {
		t.Fatal(err)
	}
	if got.HasError || want.HasError || !reflect.DeepEqual(got.Defs, want.Defs) {
		t.Fatalf("fixed version differs from its full parse (errors %v %v)", got.HasError, want.HasError)
	}
	t.Logf("%d of %d versions did not parse", broken, len(typed))
}
