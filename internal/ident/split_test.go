package ident

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// splitReference is Split as it was before the one-builder version: runes
// collected per word, each word lower-cased with strings.ToLower, the
// words joined by spaces. Split must give the same string for every input.
func splitReference(s string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				flush()
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			if i > 0 && !unicode.IsDigit(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			if i > 0 && unicode.IsDigit(rs[i-1]) {
				flush()
			}
			cur = append(cur, r)
		}
	}
	flush()
	return strings.Join(words, " ")
}

var splitCases = []string{
	"", " ", "createFileUploads", "HTTPServer_v2", "a", "A", "AB", "ABc", "aB", "x1y22Z", "  lead  trail  ",
	"web/ui/react-app/src/pages/targets/EndpointLink.tsx", "ÄpfelÜber_straße", "İstanbulΣΑΣ", "日本語Text", "ǅungla", "Ⅻnumerals٣٤",
	"bad\xffutf8\xc3", "\xc3\xa9A\xff", "ÉCOLEÉcole", "a\u0301B", "snake_case_ID42x", "kebab-case--X", "$http.Get(url)",
	"func (w *Workspace) RememberBatch(ctx context.Context, reqs []RememberRequest) ([]*Memory, []error) {",
	"a1B", "1A", "AB1", "Ab", "aBC", "ABCd", "A1b", "9z", "Z", "_A_", "x-Y", "AAbb", "aaBB", "a b", "ab ", " A",
}

func TestSplitSameAsReference(t *testing.T) {
	for _, s := range splitCases {
		if got, want := Split(s), splitReference(s); got != want {
			t.Errorf("Split(%q) = %q, want %q", s, got, want)
		}
	}
	if got := Split("HTTPServer_v2"); got != "http server v 2" {
		t.Errorf("Split(HTTPServer_v2) = %q", got)
	}
	// Every Go source file of this repository's memory, index and scip
	// packages, line by line: identifiers, paths, comments, test texts.
	n := 0
	for _, pkg := range []string{"memory", "index", "scip", "internal/secret"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", pkg, "*.go"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(data), "\n") {
				n++
				if got, want := Split(line), splitReference(line); got != want {
					t.Fatalf("%s: Split(%q) = %q, want %q", f, line, got, want)
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d lines of sources compared", n)
	}
}

func FuzzSplitSameAsReference(f *testing.F) {
	for _, s := range splitCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Split(s), splitReference(s); got != want {
			t.Errorf("Split(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzSplitASCII compares Split with splitReference on the input
// mapped onto an ASCII alphabet of lower- and upper-case letters, digits
// and separators, the inputs of Split's ASCII path.
func FuzzSplitASCII(f *testing.F) {
	for _, s := range splitCases {
		f.Add(s)
	}
	const alpha = "abZYX09_ -./"
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		for i, c := range b {
			b[i] = alpha[int(c)%len(alpha)]
		}
		if got, want := Split(string(b)), splitReference(string(b)); got != want {
			t.Errorf("Split(%q) = %q, want %q", b, got, want)
		}
	})
}

func BenchmarkSplit(b *testing.B) {
	s := strings.Repeat("func (w *Workspace) RememberBatch(ctx context.Context, reqs []RememberRequest) HTTPServer_v2\n", 20)
	b.ReportAllocs()
	for b.Loop() {
		Split(s)
	}
}

func BenchmarkSplitReference(b *testing.B) {
	s := strings.Repeat("func (w *Workspace) RememberBatch(ctx context.Context, reqs []RememberRequest) HTTPServer_v2\n", 20)
	b.ReportAllocs()
	for b.Loop() {
		splitReference(s)
	}
}
