package index

import (
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

func defsOf(t *testing.T, lang, path, src string) map[string]Definition {
	t.Helper()
	ix := &Indexer{Project: NewProject(t.TempDir())}
	f, err := ix.ParseSource(map[*Language]*ts.Parser{}, LanguageByName(lang), path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	out := map[string]Definition{}
	for _, d := range f.Defs {
		out[d.Name] = d
	}
	return out
}

// TestNormalizedHashes checks the promise behind every status: comment and
// whitespace edits never change a hash, any token change does, and header
// and body changes are told apart.
func TestNormalizedHashes(t *testing.T) {
	tests := []struct {
		lang, path, before, after      string
		sameContent, sameSig, sameBody bool
	}{
		{"go", "a.go", "package p\nfunc F(a int) int {\n\treturn a + 1 // one\n}\n", "package p\n\n// doc\nfunc F(a int) int { return a+1 /* uno */ }\n", true, true, true},
		{"go", "a.go", "package p\nfunc F(a int) int {\n\treturn a + 1\n}\n", "package p\nfunc F(a int) int {\n\treturn a + 2\n}\n", false, true, false},
		{"go", "a.go", "package p\nfunc F(a int) int {\n\treturn a + 1\n}\n", "package p\nfunc F(a int64) int {\n\treturn a + 1\n}\n", false, false, true},
		{"go", "a.go", "package p\nfunc F() string {\n\treturn \"a b\"\n}\n", "package p\nfunc F() string {\n\treturn \"a  b\"\n}\n", false, true, false},
		{"python", "a.py", "def f(a):\n    \"\"\"Doc.\"\"\"\n    return a + 1\n", "def f(a):\n    \"\"\"Other doc.\"\"\"\n    # note\n    return a+1\n", true, true, true},
		{"python", "a.py", "def f(a):\n    return a + 1\n", "def f(a, b):\n    return a + 1\n", false, false, true},
		{"typescript", "a.ts", "function f(a: number) {\n  return a + 1;\n}\n", "function f(a: number) { /* c */ return a+1; }\n", true, true, true},
		{"typescript", "a.ts", "function f(a: number) {\n  return `x ${a}`;\n}\n", "function f(a: number) {\n  return `y ${a}`;\n}\n", false, true, false},
	}
	for i, tt := range tests {
		b := defsOf(t, tt.lang, tt.path, tt.before)
		a := defsOf(t, tt.lang, tt.path, tt.after)
		name := "F"
		if tt.lang != "go" {
			name = "f"
		}
		db, da := b[name], a[name]
		if db.Symbol == "" || da.Symbol == "" {
			t.Fatalf("case %d: definition %s not found", i, name)
		}
		if got := db.ContentHash == da.ContentHash; got != tt.sameContent {
			t.Errorf("case %d: same content = %v, want %v", i, got, tt.sameContent)
		}
		if got := db.SignatureHash == da.SignatureHash; got != tt.sameSig {
			t.Errorf("case %d: same signature = %v, want %v", i, got, tt.sameSig)
		}
		if got := db.BodyHash == da.BodyHash; got != tt.sameBody {
			t.Errorf("case %d: same body = %v, want %v", i, got, tt.sameBody)
		}
	}
}

func TestLinesUTF16(t *testing.T) {
	src := []byte("héllo 𝄞x\nsecond\n")
	l := NewLines(src)
	if l.Count() != 3 {
		t.Fatalf("Count = %d, want 3", l.Count())
	}
	// 'x' follows h, é, l, l, o, space (6 UTF-16 units) and 𝄞 (2 units).
	off := len("héllo 𝄞")
	line, col := l.Position(off)
	if line != 0 || col != 8 {
		t.Errorf("Position(%d) = %d:%d, want 0:8", off, line, col)
	}
	back, exact := l.Offset(0, 8)
	if back != off || !exact {
		t.Errorf("Offset(0,8) = %d,%v want %d,true", back, exact, off)
	}
	if o, exact := l.Offset(1, 99); o != l.End(1) || exact {
		t.Errorf("Offset past line end = %d,%v want %d,false", o, exact, l.End(1))
	}
	if got := l.Text(1); got != "second" {
		t.Errorf("Text(1) = %q", got)
	}
}

func TestCheckContent(t *testing.T) {
	if r := CheckContent([]byte("a\x00b")); r != SkipBinary {
		t.Errorf("NUL: %q", r)
	}
	if r := CheckContent([]byte{0xff, 0xfe, 'a'}); r != SkipInvalidUTF8 {
		t.Errorf("invalid UTF-8: %q", r)
	}
	if r := CheckContent([]byte("ok ✓")); r != "" {
		t.Errorf("text: %q", r)
	}
}

// LineCount counts lines as NewLines does: a final line without a
// newline counts, an empty file has one line.
func TestLineCount(t *testing.T) {
	for _, src := range []string{"", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n\n", "x\r\ny\r\n", strings.Repeat("line\n", 1000) + "tail"} {
		if got, want := LineCount([]byte(src)), NewLines([]byte(src)).Count(); got != want {
			t.Errorf("LineCount(%q) = %d, want %d", truncate([]byte(src), 20), got, want)
		}
	}
}

// SplitTokens splits the tokens holding whitespace into their pieces,
// offsets kept, and leaves the others whole.
func TestSplitTokens(t *testing.T) {
	src := "x := `a b\n\tc`\ny"
	toks := []Token{{Text: "x", Start: 0, End: 1}, {Text: ":=", Start: 2, End: 4}, {Text: "`a b\n\tc`", Start: 5, End: 13}, {Text: "y", Start: 14, End: 15}}
	got := SplitTokens(toks)
	want := []string{"x", ":=", "`a", "b", "c`", "y"}
	if len(got) != len(want) {
		t.Fatalf("%d pieces, want %d: %v", len(got), len(want), got)
	}
	for i, p := range got {
		if p.Text != want[i] || src[p.Start:p.End] != p.Text {
			t.Fatalf("piece %d: %q at [%d, %d), want %q, the source's text there", i, p.Text, p.Start, p.End, want[i])
		}
	}
}
