package index

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ts "github.com/odvcencio/gotreesitter"
)

// The production route gloss parses Python, TypeScript and JavaScript on
// (NewParser) gives the trees of gotreesitter's default route, the
// compact parser core, node for node: symbol, byte span, named, missing
// and error flags, child count and each child's field name, on every
// such file of this repository (the fixtures among them). Go files keep
// the default route (NewParser). docs/benchmarks.md (session 26) has the
// same comparison on every file of mypy, sympy, excalidraw and
// prometheus' web UI.
func TestParseRoutesSameTrees(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		if l := LanguageFor(path); l != nil && l.production {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byLang := map[string]int{}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lang := LanguageFor(path)
		compact := ts.NewParser(lang.TS())
		compact.SetAdmissionCandidateRoute(true)
		want := treeShape(t, compact, lang, src)
		got := treeShape(t, NewParser(lang), lang, src)
		if got != want {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: the production route's tree differs from the compact route's (%d and %d bytes of shape)", rel, len(got), len(want))
		}
		byLang[lang.Name]++
	}
	for _, name := range []string{"python", "typescript", "javascript"} {
		if byLang[name] == 0 {
			t.Errorf("no %s file compared (%v)", name, byLang)
		}
	}
	t.Logf("files compared by language: %v", byLang)
}

// treeShape parses src with p and returns its tree, node by node in
// preorder, as text.
func treeShape(t *testing.T, p *ts.Parser, lang *Language, src []byte) string {
	t.Helper()
	tree, err := p.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	var b strings.Builder
	var walk func(n *ts.Node, field string)
	walk = func(n *ts.Node, field string) {
		fmt.Fprintf(&b, "%d %s %d-%d %v%v%v %d\n", n.Symbol(), field, n.StartByte(), n.EndByte(), n.IsNamed(), n.IsMissing(), n.IsError(), n.ChildCount())
		for i := range n.ChildCount() {
			walk(n.Child(i), n.FieldNameForChild(i, lang.TS()))
		}
	}
	walk(tree.RootNode(), "")
	return b.String()
}
