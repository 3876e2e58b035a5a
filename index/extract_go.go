package index

import (
	"strings"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/scip"
)

// extractGo extracts Go definitions with scip-go symbols:
//
//	function   `pkg/path`/Func().
//	method     `pkg/path`/Type#Method().
//	type       `pkg/path`/Type#
//	field      `pkg/path`/Type#Field.   (embedded: the type's name)
//	iface meth `pkg/path`/Iface#Method.
//	const/var  `pkg/path`/Name.
//
// as in scip-go's snapshot tests (internal/testdata/snapshots/output).
func extractGo(x *extractor) {
	root := x.f.tree.RootNode()
	pkgName := ""
	if pc := x.childOfType(root, "package_clause"); pc != nil {
		pkgName = x.text(x.childOfType(pc, "package_identifier"))
	}
	x.f.goPkg = pkgName
	x.pkg, x.pre = x.pc.SymbolPrefix(x.f.lang, x.f.Path, pkgName)
	for _, n := range x.children(root) {
		switch x.typ(n) {
		case "function_declaration":
			name := x.field(n, "name")
			if name == nil || x.text(name) == "_" {
				continue
			}
			x.add(defSpec{node: n, name: name, kind: KindFunction, descs: []scip.Descriptor{{Name: x.text(name), Suffix: scip.Method}}, body: x.field(n, "body"), header: true})
		case "method_declaration":
			name := x.field(n, "name")
			recv := x.goReceiverType(x.field(n, "receiver"))
			if name == nil || recv == "" {
				continue
			}
			x.add(defSpec{node: n, name: name, kind: KindMethod, descs: []scip.Descriptor{{Name: recv, Suffix: scip.Type}, {Name: x.text(name), Suffix: scip.Method}},
				parent: x.symbol(scip.Descriptor{Name: recv, Suffix: scip.Type}), body: x.field(n, "body"), header: true})
		case "type_declaration":
			specs := x.goSpecs(n, "type_spec", "type_alias")
			for _, spec := range specs {
				node := spec
				if len(specs) == 1 && !x.goGrouped(n) {
					node = n
				}
				x.goType(node, spec)
			}
		case "const_declaration", "var_declaration":
			kind := KindConst
			if x.typ(n) == "var_declaration" {
				kind = KindVar
			}
			specs := x.goSpecs(n, "const_spec", "var_spec")
			for _, spec := range specs {
				node := spec
				if len(specs) == 1 && !x.goGrouped(n) {
					node = n
				}
				for _, name := range x.fieldChildren(spec, "name") {
					if x.text(name) == "_" {
						continue
					}
					x.add(defSpec{node: node, anchor: node, name: name, kind: kind, descs: []scip.Descriptor{{Name: x.text(name), Suffix: scip.Term}}})
				}
			}
		}
	}
}

// goGrouped reports whether a declaration uses parentheses: type ( ... ).
func (x *extractor) goGrouped(decl *ts.Node) bool {
	for _, c := range x.children(decl) {
		if x.typ(c) == "(" {
			return true
		}
	}
	return false
}

// goSpecs returns the spec nodes of a declaration, looking through
// var_spec_list and similar wrappers.
func (x *extractor) goSpecs(decl *ts.Node, types ...string) []*ts.Node {
	var out []*ts.Node
	for _, c := range x.children(decl) {
		t := x.typ(c)
		match := false
		for _, want := range types {
			if t == want {
				match = true
			}
		}
		if match {
			out = append(out, c)
		} else if strings.HasSuffix(t, "_list") {
			out = append(out, x.goSpecs(c, types...)...)
		}
	}
	return out
}

// fieldChildren returns every direct child of n stored under field name.
func (x *extractor) fieldChildren(n *ts.Node, name string) []*ts.Node {
	var out []*ts.Node
	cnt := n.ChildCount()
	for i := 0; i < cnt; i++ {
		if n.FieldNameForChild(i, x.lang) == name {
			if c := n.Child(i); c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// goReceiverType returns the base type name of a method receiver:
// "(s *Server[T])" gives "Server".
func (x *extractor) goReceiverType(recv *ts.Node) string {
	if recv == nil {
		return ""
	}
	var found string
	var walk func(n *ts.Node) bool
	walk = func(n *ts.Node) bool {
		if x.typ(n) == "type_identifier" {
			found = x.text(n)
			return true
		}
		if x.typ(n) == "type_arguments" || x.typ(n) == "type_parameter_list" {
			return false
		}
		for _, c := range x.children(n) {
			if walk(c) {
				return true
			}
		}
		return false
	}
	for _, c := range x.children(recv) {
		if x.typ(c) == "parameter_declaration" {
			if t := x.field(c, "type"); t != nil {
				walk(t)
			}
			break
		}
	}
	return found
}

func (x *extractor) goType(node, spec *ts.Node) {
	name := x.field(spec, "name")
	if name == nil {
		return
	}
	typ := x.field(spec, "type")
	kind := KindType
	switch x.typ(typ) {
	case "struct_type":
		kind = KindStruct
	case "interface_type":
		kind = KindInterface
	}
	tname := x.text(name)
	sym := x.add(defSpec{node: node, anchor: node, name: name, kind: kind, descs: []scip.Descriptor{{Name: tname, Suffix: scip.Type}}, body: typ, header: true})
	base := []scip.Descriptor{{Name: tname, Suffix: scip.Type}}
	switch kind {
	case KindStruct:
		x.goFields(typ, base, sym)
	case KindInterface:
		for _, c := range x.children(typ) {
			if t := x.typ(c); t == "method_elem" || t == "method_spec" {
				mn := x.field(c, "name")
				if mn == nil {
					continue
				}
				x.add(defSpec{node: c, name: mn, kind: KindMethod, descs: append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(mn), Suffix: scip.Term}), parent: sym, header: true})
			}
		}
	}
}

// goFields records the fields of a struct type, recursing into inline
// struct types (`Outer#Field.Inner.`).
func (x *extractor) goFields(st *ts.Node, base []scip.Descriptor, parent string) {
	list := x.childOfType(st, "field_declaration_list")
	if list == nil {
		return
	}
	for _, fd := range x.children(list) {
		if x.typ(fd) != "field_declaration" {
			continue
		}
		names := x.fieldChildren(fd, "name")
		ftype := x.field(fd, "type")
		if len(names) == 0 && ftype != nil {
			// Embedded field: named after its type, without pointer or package.
			en := x.embeddedName(ftype)
			if en == nil {
				continue
			}
			names = []*ts.Node{en}
		}
		for _, nm := range names {
			descs := append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: x.text(nm), Suffix: scip.Term})
			sym := x.add(defSpec{node: fd, name: nm, kind: KindField, descs: descs, parent: parent})
			if ftype != nil && x.typ(ftype) == "struct_type" {
				x.goFields(ftype, descs, sym)
			}
		}
	}
}

func (x *extractor) embeddedName(t *ts.Node) *ts.Node {
	switch x.typ(t) {
	case "type_identifier":
		return t
	case "pointer_type", "generic_type":
		for _, c := range x.children(t) {
			if n := x.embeddedName(c); n != nil {
				return n
			}
		}
	case "qualified_type":
		return x.field(t, "name")
	}
	return nil
}
