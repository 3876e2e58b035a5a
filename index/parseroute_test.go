package index

import (
	"fmt"
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
	// The files gloss would index in this repository (Walk: git's list,
	// .gitignore honoured).
	w, err := Walk(root, DefaultMaxFileSize)
	if err != nil {
		t.Fatal(err)
	}
	byLang := map[string]int{}
	for _, c := range w.Files {
		lang := c.Lang
		if !lang.production {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.Path)))
		if err != nil {
			t.Fatal(err)
		}
		compact := ts.NewParser(lang.TS())
		compact.SetAdmissionCandidateRoute(true)
		want := treeShape(t, compact, lang, src)
		got := treeShape(t, NewParser(lang), lang, src)
		if got != want {
			t.Errorf("%s: the production route's tree differs from the compact route's (%d and %d bytes of shape)", c.Path, len(got), len(want))
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
