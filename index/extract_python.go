package index

import (
	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/scip"
)

// extractPython extracts Python definitions with scip-python symbols:
//
//	function   `pkg.module`/func().
//	class      `pkg.module`/Class#
//	method     `pkg.module`/Class#method().
//	attribute  `pkg.module`/Class#attr.
//	variable   `pkg.module`/NAME.
//
// as in scip-python's snapshot tests (packages/pyright-scip/snapshots).
// Nested functions are locals in scip-python and are not recorded.
func extractPython(x *extractor) {
	root := x.f.tree.RootNode()
	x.pkg, x.pre = x.pc.SymbolPrefix(x.f.lang, x.f.Path, "")
	x.pyDocstring(root)
	x.pyBlock(root, nil, "")
}

// pyStmt is a statement of a module or block and where it is: child at
// (Node.Child's index) of parent, so that its preceding siblings are found
// without the tree's parent links (defSpec.sibs).
type pyStmt struct {
	node, parent *ts.Node
	at           int
}

// pyStatements returns the statements of a module or block, looking through
// expression_statement wrappers.
func (x *extractor) pyStatements(block *ts.Node) []pyStmt {
	if block == nil {
		return nil
	}
	var out []pyStmt
	for i, n := 0, block.ChildCount(); i < n; i++ {
		c := block.Child(i)
		if c == nil {
			continue
		}
		if x.typ(c) == "expression_statement" {
			for j, m := 0, c.ChildCount(); j < m; j++ {
				if k := c.Child(j); k != nil {
					out = append(out, pyStmt{k, c, j})
				}
			}
			continue
		}
		out = append(out, pyStmt{c, block, i})
	}
	return out
}

// pyDocstring marks the docstring of a module, class or function body (its
// first statement when that is a string literal) so that it is left out of
// token hashes, and returns its text.
func (x *extractor) pyDocstring(block *ts.Node) string {
	if block == nil {
		return ""
	}
	for _, c := range x.children(block) {
		t := x.typ(c)
		if isCommentType(t) {
			continue
		}
		target := c
		if t == "expression_statement" {
			kids := x.children(c)
			if len(kids) != 1 {
				return ""
			}
			target = kids[0]
		}
		if x.typ(target) == "string" || x.typ(target) == "concatenated_string" {
			x.f.skip(c)
			x.f.skipNodes[target] = true // inside c
			return cleanDocstring(x.text(target))
		}
		return ""
	}
	return ""
}

func (x *extractor) pyBlock(block *ts.Node, base []scip.Descriptor, parent string) {
	for _, ps := range x.pyStatements(block) {
		st := ps.node
		node := st
		def := st
		if x.typ(st) == "decorated_definition" {
			def = x.field(st, "definition")
			if def == nil {
				def = x.childOfType(st, "function_definition", "class_definition")
			}
			if def == nil {
				continue
			}
		}
		switch x.typ(def) {
		case "function_definition":
			name := x.field(def, "name")
			if name == nil {
				continue
			}
			body := x.field(def, "body")
			doc := x.pyDocstring(body)
			kind := KindFunction
			if parent != "" {
				kind = KindMethod
			}
			descs := append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(name), Suffix: scip.Method})
			x.add(defSpec{node: node, name: name, kind: kind, descs: descs, parent: parent, body: body, header: true, doc: doc, sibs: ps.parent, at: ps.at})
		case "class_definition":
			name := x.field(def, "name")
			if name == nil {
				continue
			}
			body := x.field(def, "body")
			doc := x.pyDocstring(body)
			descs := append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(name), Suffix: scip.Type})
			sym := x.add(defSpec{node: node, name: name, kind: KindClass, descs: descs, parent: parent, body: body, header: true, doc: doc, sibs: ps.parent, at: ps.at})
			x.pyBlock(body, descs, sym)
		case "assignment":
			left := x.field(def, "left")
			if left == nil || x.typ(left) != "identifier" {
				continue
			}
			kind := KindVar
			if parent != "" {
				kind = KindField
			}
			descs := append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(left), Suffix: scip.Term})
			x.add(defSpec{node: node, name: left, kind: kind, descs: descs, parent: parent, sibs: ps.parent, at: ps.at})
		}
	}
}
