package index

import (
	"iter"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/scip"
)

// extractTS extracts TypeScript, TSX and JavaScript definitions with
// scip-typescript symbols:
//
//	function    src/`file.ts`/func().
//	class       src/`file.ts`/Class#
//	method      src/`file.ts`/Class#method().   (constructor: `<constructor>`().,
//	                                           accessors: `<get>name`(). / `<set>name`().)
//	property    src/`file.ts`/Class#prop.
//	interface   src/`file.ts`/Iface#  members Iface#prop. / Iface#method().
//	type alias  src/`file.ts`/Alias#
//	enum        src/`file.ts`/Enum#   members Enum#Member.
//	variable    src/`file.ts`/name.
//	namespace   src/`file.ts`/Space/
//
// as in scip-typescript's snapshot tests (snapshots/output/syntax).
func extractTS(x *extractor) {
	root := x.f.tree.RootNode()
	x.pkg, x.pre = x.pc.SymbolPrefix(x.f.lang, x.f.Path, "")
	x.tsStatements(root, nil, "")
}

func (x *extractor) tsStatements(block *ts.Node, base []scip.Descriptor, parent string) {
	for i, st := range childrenAt(block) {
		x.tsStatement(st, st, base, parent, sibling{block, i})
	}
}

// childrenAt yields the children of n (none when n is nil) with their
// index among them (Node.Child), for defSpec.sibs.
func childrenAt(n *ts.Node) iter.Seq2[int, *ts.Node] {
	return func(yield func(int, *ts.Node) bool) {
		if n == nil {
			return
		}
		for i := range n.ChildCount() {
			if c := n.Child(i); c != nil && !yield(i, c) {
				return
			}
		}
	}
}

// sibling locates a node among its parent's children (Node.Child(at)),
// for defSpec.sibs: the doc comment above it is read without the tree's
// parent links.
type sibling struct {
	parent *ts.Node
	at     int
}

// tsStatement records the declaration decl; outer is the node that carries
// the doc comment and the range (an export_statement around decl), at
// its place loc among its parent's children.
func (x *extractor) tsStatement(outer, decl *ts.Node, base []scip.Descriptor, parent string, loc sibling) {
	with := func(d scip.Descriptor) []scip.Descriptor {
		return append(append([]scip.Descriptor{}, base...), d)
	}
	switch x.typ(decl) {
	case "export_statement", "ambient_declaration", "expression_statement":
		if d := x.field(decl, "declaration"); d != nil {
			x.tsStatement(outer, d, base, parent, loc)
			return
		}
		for _, c := range x.children(decl) {
			if c.IsNamed() && !isCommentType(x.typ(c)) {
				x.tsStatement(outer, c, base, parent, loc)
			}
		}
	case "function_declaration", "generator_function_declaration", "function_signature":
		name := x.field(decl, "name")
		if name == nil {
			return
		}
		x.add(defSpec{sibs: loc.parent, at: loc.at, node: outer, name: name, kind: KindFunction, descs: with(scip.Descriptor{Name: x.text(name), Suffix: scip.Method}), parent: parent, body: x.field(decl, "body"), header: true})
	case "class_declaration", "abstract_class_declaration", "class":
		name := x.field(decl, "name")
		if name == nil {
			return
		}
		descs := with(scip.Descriptor{Name: x.text(name), Suffix: scip.Type})
		body := x.field(decl, "body")
		sym := x.add(defSpec{sibs: loc.parent, at: loc.at, node: outer, name: name, kind: KindClass, descs: descs, parent: parent, body: body, header: true})
		x.tsClassBody(body, descs, sym)
	case "interface_declaration":
		name := x.field(decl, "name")
		if name == nil {
			return
		}
		descs := with(scip.Descriptor{Name: x.text(name), Suffix: scip.Type})
		body := x.field(decl, "body")
		sym := x.add(defSpec{sibs: loc.parent, at: loc.at, node: outer, name: name, kind: KindInterface, descs: descs, parent: parent, body: body, header: true})
		x.tsClassBody(body, descs, sym)
	case "type_alias_declaration":
		name := x.field(decl, "name")
		if name == nil {
			return
		}
		x.add(defSpec{sibs: loc.parent, at: loc.at, node: outer, name: name, kind: KindType, descs: with(scip.Descriptor{Name: x.text(name), Suffix: scip.Type}), parent: parent, body: x.field(decl, "value"), header: true})
	case "enum_declaration":
		name := x.field(decl, "name")
		if name == nil {
			return
		}
		descs := with(scip.Descriptor{Name: x.text(name), Suffix: scip.Type})
		body := x.field(decl, "body")
		sym := x.add(defSpec{sibs: loc.parent, at: loc.at, node: outer, name: name, kind: KindEnum, descs: descs, parent: parent, body: body, header: true})
		x.tsEnumMembers(body, descs, sym)
	case "lexical_declaration", "variable_declaration":
		x.tsVariables(outer, decl, base, parent, loc)
	case "internal_module", "module":
		name := x.field(decl, "name")
		if name == nil {
			return
		}
		descs := with(scip.Descriptor{Name: x.text(name), Suffix: scip.Namespace})
		body := x.field(decl, "body")
		sym := x.add(defSpec{sibs: loc.parent, at: loc.at, node: outer, name: name, kind: KindNamespace, descs: descs, parent: parent, body: body, header: true})
		if body != nil {
			x.tsStatements(body, descs, sym)
		}
	}
}

// tsEnumMembers records the members of an enum body.
func (x *extractor) tsEnumMembers(body *ts.Node, descs []scip.Descriptor, sym string) {
	for i, m := range childrenAt(body) {
		mn := m
		switch x.typ(m) {
		case "enum_assignment":
			mn = x.field(m, "name")
		case "property_identifier", "identifier":
		default:
			continue
		}
		if mn == nil {
			continue
		}
		x.add(defSpec{node: m, sibs: body, at: i, name: mn, kind: KindField, descs: append(append([]scip.Descriptor{}, descs...), scip.Descriptor{Name: x.text(mn), Suffix: scip.Term}), parent: sym})
	}
}

// tsVariables records the variables (functions when initialized with a
// function) of a const/let/var declaration; outer, at loc, carries the doc
// comment.
func (x *extractor) tsVariables(outer, decl *ts.Node, base []scip.Descriptor, parent string, loc sibling) {
	kind := KindVar
	var decls []*ts.Node
	for _, c := range x.children(decl) {
		switch x.typ(c) {
		case "const":
			kind = KindConst
		case "variable_declarator":
			decls = append(decls, c)
		}
	}
	for _, vd := range decls {
		name := x.field(vd, "name")
		if name == nil || x.typ(name) != "identifier" {
			continue // destructuring patterns define locals only
		}
		node := vd
		if len(decls) == 1 {
			node = outer
		}
		descs := append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(name), Suffix: scip.Term})
		spec := defSpec{node: node, anchor: outer, sibs: loc.parent, at: loc.at, name: name, kind: kind, descs: descs, parent: parent}
		if v := x.field(vd, "value"); v != nil {
			switch x.typ(v) {
			case "arrow_function", "function_expression", "function", "generator_function":
				spec.kind = KindFunction
				spec.body = x.field(v, "body")
				spec.header = true
			}
		}
		x.add(spec)
	}
}

// tsClassBody records the members of a class or interface body.
func (x *extractor) tsClassBody(body *ts.Node, base []scip.Descriptor, parent string) {
	for i, m := range childrenAt(body) {
		t := x.typ(m)
		switch t {
		case "method_definition", "method_signature", "abstract_method_signature":
			name := x.field(m, "name")
			if name == nil {
				continue
			}
			n := x.text(name)
			for _, c := range x.children(m) {
				switch x.typ(c) {
				case "get":
					n = "<get>" + n
				case "set":
					n = "<set>" + n
				}
			}
			if n == "constructor" {
				n = "<constructor>"
			}
			x.add(defSpec{node: m, sibs: body, at: i, name: name, kind: KindMethod, descs: append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: n, Suffix: scip.Method}), parent: parent, body: x.field(m, "body"), header: true})
		case "public_field_definition", "field_definition", "property_signature":
			name := x.field(m, "name")
			if name == nil {
				name = x.field(m, "property")
			}
			if name == nil {
				continue
			}
			x.add(defSpec{node: m, sibs: body, at: i, name: name, kind: KindField, descs: append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(name), Suffix: scip.Term}), parent: parent})
		}
	}
}
