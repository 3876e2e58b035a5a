package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// BenchmarkExtractTrees measures extraction alone (definitions, hashes,
// calls, imports, token record) on trees parsed once, of the files of
// language GLOSS_BENCH_LANG (default python) under GLOSS_BENCH_DIR (up to
// GLOSS_BENCH_BYTES bytes, default 3 MB). Skipped without GLOSS_BENCH_DIR.
func BenchmarkExtractTrees(b *testing.B) {
	dir := os.Getenv("GLOSS_BENCH_DIR")
	if dir == "" {
		b.Skip("GLOSS_BENCH_DIR not set")
	}
	langName := os.Getenv("GLOSS_BENCH_LANG")
	if langName == "" {
		langName = "python"
	}
	lang := LanguageByName(langName)
	type parsed struct {
		path string
		src  []byte
		tree *ts.Tree
	}
	var files []parsed
	var total int64
	p := ts.NewParser(lang.TS())
	_ = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || total > 3<<20 || info.IsDir() || LanguageFor(path) != lang || strings.Contains(path, "/.git/") {
			return nil
		}
		src, _ := os.ReadFile(path)
		t, err := p.Parse(src)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, parsed{filepath.ToSlash(rel), src, t})
		total += int64(len(src))
		return nil
	})
	pc := NewProject(dir)
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, fl := range files {
			f := extractTree(fl.tree, lang, fl.path, fl.src, pc)
			if _, err := f.tokenRecord(); err != nil {
				b.Fatal(err)
			}
			f.owned = nil // the tree serves the next iteration
		}
	}
}
