package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// benchSources returns the Go files of this repository (a real, varied
// corpus that every checkout has).
func benchSources(b *testing.B) map[string][]byte {
	out := map[string][]byte{}
	_ = filepath.Walk("..", func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() && (info.Name() == "testdata" || info.Name() == "node_modules" || info.Name() == "editors") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			src, _ := os.ReadFile(p)
			out[p] = src
		}
		return nil
	})
	if len(out) == 0 {
		b.Skip("no sources")
	}
	return out
}

// BenchmarkParseOnly measures the tree-sitter parse alone, for comparison
// with BenchmarkExtract (parse + definitions + hashes + calls).
func BenchmarkParseOnly(b *testing.B) {
	srcs := benchSources(b)
	lang := LanguageByName("go")
	p := ts.NewParser(lang.TS())
	setBytes(b, srcs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range srcs {
			t, err := p.Parse(s)
			if err != nil {
				b.Fatal(err)
			}
			t.Release()
		}
	}
}

// BenchmarkExtract measures parsing plus extraction of definitions, hashes
// and calls, single-threaded; MB/s is per core.
func BenchmarkExtract(b *testing.B) {
	srcs := benchSources(b)
	lang := LanguageByName("go")
	parsers := map[*Language]*ts.Parser{}
	ix := &Indexer{Project: NewProject(b.TempDir())}
	setBytes(b, srcs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for p, s := range srcs {
			f, err := ix.ParseSource(parsers, lang, p, s)
			if err != nil {
				b.Fatal(err)
			}
			f.Release()
		}
	}
}

func setBytes(b *testing.B, srcs map[string][]byte) {
	var n int64
	for _, s := range srcs {
		n += int64(len(s))
	}
	b.SetBytes(n)
}

// BenchmarkParseGoFast is BenchmarkExtract through ParseGoFast (go/parser
// and go/scanner; definitions, hashes and compact tokens, no calls),
// against BenchmarkExtractLean, the tree-sitter parse it stands for
// (Parse + DropTree).
func BenchmarkParseGoFast(b *testing.B) {
	srcs := benchSources(b)
	lang := LanguageByName("go")
	ix := &Indexer{Project: NewProject(b.TempDir())}
	setBytes(b, srcs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for p, s := range srcs {
			if _, ok := ix.ParseGoFast(lang, p, s); !ok {
				b.Fatalf("%s: fast path refused", p)
			}
		}
	}
}

// BenchmarkExtractLean is BenchmarkExtract followed by DropTree, the
// tree-sitter way ParseGoFast replaces.
func BenchmarkExtractLean(b *testing.B) {
	srcs := benchSources(b)
	lang := LanguageByName("go")
	parsers := map[*Language]*ts.Parser{}
	ix := &Indexer{Project: NewProject(b.TempDir())}
	setBytes(b, srcs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for p, s := range srcs {
			f, err := ix.ParseSource(parsers, lang, p, s)
			if err != nil {
				b.Fatal(err)
			}
			f.DropTree()
		}
	}
}
