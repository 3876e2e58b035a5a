// Command genprior trains gloss's general-domain prior word embedding
// (embed/prior.bin) from the comments and identifiers of the Go
// distribution's own source, `$(go env GOROOT)/src` (BSD-licensed, on
// every Go developer's machine), and writes it quantized to int8 (see
// embed.Prior and embed.MarshalPrior).
//
// Usage (from package embed, via go generate):
//
//	go run ./internal/genprior [-goroot DIR] [-o prior.bin] [-dim 64] [-vocab 28000]
//
// Corpus: every .go file under GOROOT/src except testdata directories,
// in lexical path order, parsed with go/parser. Units (embed.Unit):
// a declaration's name (Head) with each paragraph of its doc comment
// (Body); every other comment group, one unit per paragraph; per
// function its name with the names it calls. Training is
// embed.TrainBuiltin (PPMI with context-distribution smoothing, then
// truncated SVD; Levy, Goldberg & Dagan 2015). The output is a function
// of the GOROOT's files and the flags only: the same Go release gives the
// same bytes.
package main

import (
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/embed"
)

func main() {
	goroot := flag.String("goroot", build.Default.GOROOT, "Go distribution whose src is the corpus")
	out := flag.String("o", "prior.bin", "output file")
	dim := flag.Int("dim", 64, "vector length")
	vocab := flag.Int("vocab", 28000, "most frequent words kept")
	minCount := flag.Int("mincount", 5, "fewest occurrences of a vocabulary word")
	window := flag.Int("window", 5, "co-occurrence window, in words on each side")
	flag.Parse()
	if err := run(*goroot, *out, *dim, *vocab, *minCount, *window); err != nil {
		log.Fatal(err)
	}
}

func run(goroot, out string, dim, vocab, minCount, window int) error {
	version, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		return fmt.Errorf("read the Go release of %s: %w", goroot, err)
	}
	release, _, _ := strings.Cut(string(version), "\n")
	units, err := corpus(filepath.Join(goroot, "src"))
	if err != nil {
		return err
	}
	b, err := embed.TrainBuiltin(context.Background(), seq(units), embed.TrainOptions{Dim: dim, MaxVocab: vocab, MinCount: minCount, Window: window, NoPrior: true})
	if err != nil {
		return err
	}
	data := embed.MarshalPrior(b, "go-src "+release)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	log.Printf("%s: %d units, %d words, dim %d, %d bytes, from %s", out, len(units), b.VocabSize(), dim, len(data), release)
	return nil
}

func seq(units []embed.Unit) iter.Seq[embed.Unit] {
	return func(yield func(embed.Unit) bool) {
		for _, u := range units {
			if !yield(u) {
				return
			}
		}
	}
}

// corpus returns the training units of the .go files under src.
func corpus(src string) ([]embed.Unit, error) {
	var units []embed.Unit
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil // files that do not parse (deliberately broken sources) are left out
		}
		units = append(units, fileUnits(f)...)
		return nil
	})
	return units, err
}

// fileUnits returns the units of one parsed file (see the package doc).
func fileUnits(f *ast.File) []embed.Unit {
	var units []embed.Unit
	docs := map[*ast.CommentGroup]bool{}
	doc := func(name string, g *ast.CommentGroup) {
		if g == nil {
			return
		}
		docs[g] = true
		for _, p := range paragraphs(g.Text()) {
			units = append(units, embed.Unit{Head: name, Body: p})
		}
	}
	if f.Doc != nil {
		doc(f.Name.Name, f.Doc)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			doc(d.Name.Name, d.Doc)
			if d.Body != nil {
				units = append(units, embed.Unit{Head: d.Name.Name, Body: strings.Join(calls(d.Body), " ")})
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				name, g := specDoc(s)
				if g == nil && len(d.Specs) == 1 {
					g = d.Doc
				}
				doc(name, g)
			}
		}
	}
	for _, g := range f.Comments {
		if !docs[g] {
			for _, p := range paragraphs(g.Text()) {
				units = append(units, embed.Unit{Body: p})
			}
		}
	}
	return units
}

// specDoc returns the name and doc comment of a type, const or var spec.
func specDoc(s ast.Spec) (string, *ast.CommentGroup) {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Name.Name, s.Doc
	case *ast.ValueSpec:
		if len(s.Names) > 0 {
			return s.Names[0].Name, s.Doc
		}
	}
	return "", nil
}

// calls returns the names of the functions and methods body calls, in
// source order.
func calls(body *ast.BlockStmt) []string {
	var names []string
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			switch fn := c.Fun.(type) {
			case *ast.Ident:
				names = append(names, fn.Name)
			case *ast.SelectorExpr:
				names = append(names, fn.Sel.Name)
			}
		}
		return true
	})
	return names
}

// paragraphs splits comment text at blank lines, dropping indented
// (code) lines and directives.
func paragraphs(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "  "):
			// code examples in comments
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}
