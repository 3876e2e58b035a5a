package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/scip"
)

// ParseGoFast parses the Go source src of the workspace file path without
// tree-sitter, with go/parser for the declarations and go/scanner for the
// tokens, into a File without syntax trees whose definitions (symbols,
// names, kinds, parents, ranges, doc comments, signature, body and content
// hashes) and token stream (Tokens) are those Parse followed by DropTree
// gives: the token stream reproduces the leaves of tree-sitter's Go
// grammar (go/scanner's tokens, with the automatic semicolons dropped and
// string literals split as the grammar splits them: quote, content runs
// and escape sequences, quote). TestParseGoFastMatchesParse checks the
// equality on the Go files of GOROOT/src.
//
// It costs about an eighteenth of a tree-sitter parse (BenchmarkParseGoFast
// against BenchmarkExtractLean). ok is false, and
// the caller parses with tree-sitter, whenever the fast path cannot vouch
// for the result: a syntax error (go/parser or go/scanner), a byte order
// mark, a NUL byte, a method receiver of an unusual shape, or a file over
// 2 GiB. The File has no Calls, no Imports and no top-level node list, so
// Reparse and ReparseLean parse its next version whole; it is meant for
// callers that only compare definitions and tokens (git history import).
func (ix *Indexer) ParseGoFast(lang *Language, path string, src []byte) (f *File, ok bool) {
	return ix.parseGoFast(lang, path, src, false)
}

// parseGoFast is ParseGoFast; with refs it also fills the File's Calls
// and Imports as Parse does (collectCalls, collectImports), for the index
// run (parseOne), which stores them.
func (ix *Indexer) parseGoFast(lang *Language, path string, src []byte, refs bool) (f *File, ok bool) {
	if lang == nil || lang.Name != "go" || len(src) >= 1<<31 || bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) || bytes.IndexByte(src, 0) >= 0 {
		return nil, false
	}
	spans, ok := goFastTokens(src)
	if !ok {
		return nil, false
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil || af.Name == nil {
		return nil, false
	}
	tf := fset.File(af.Package)
	f = &File{Path: path, Lang: lang, Src: src, Lines: NewLines(src), lang: lang, spans: spans, goPkg: af.Name.Name}
	g := &goFast{f: f, tf: tf, x: &extractor{f: f, pc: ix.Project}}
	g.x.pkg, g.x.pre = g.x.pc.SymbolPrefix(lang, path, af.Name.Name)
	for _, cg := range af.Comments {
		g.comments = append(g.comments, cg.List...)
	}
	if !g.decls(af) {
		return nil, false
	}
	sort.SliceStable(f.Defs, func(i, j int) bool { return f.Defs[i].Range.StartByte < f.Defs[j].Range.StartByte })
	if refs {
		g.refs(af)
	}
	f.srcHash = HashBytes(src)
	return f, true
}

// refs fills f.Calls and f.Imports from the syntax tree af as
// collectCalls and collectImports fill them from tree-sitter's: every call
// in source order (pre-order, an outer call before the calls in its
// function and arguments) that goFastCallee names, with the innermost
// enclosing definition and the 0-based line of the call's first byte; the
// import paths in source order, each once.
func (g *goFast) refs(af *ast.File) {
	f := g.f
	ast.Inspect(af, func(n ast.Node) bool {
		if c, isCall := n.(*ast.CallExpr); isCall {
			if name := goFastCallee(c); name != "" {
				off := g.off(c.Pos())
				f.Calls = append(f.Calls, Call{Caller: f.Enclosing(off, off).Symbol, Name: name, Line: f.Lines.LineOf(off)})
			}
		}
		return true
	})
	seen := map[string]bool{}
	for _, im := range af.Imports {
		if spec := unquote(im.Path.Value); spec != "" && !seen[spec] {
			seen[spec] = true
			f.Imports = append(f.Imports, Import{Spec: spec})
		}
	}
}

// goFastCallee returns the name collectCalls records for the call c: the
// name of an identifier or the field of a selector called; for a call
// with an index, X[I](args) or X[I, J](args), the name of X (an
// identifier or a selector) when I may be a type (an identifier, a
// selector, a pointer or other type expression, an instantiated generic
// type; always with two or more indexes). Go's grammar, like go/ast,
// cannot tell a call with explicit type arguments F[T](args) from a call
// of an element F[i](args), and gotreesitter reads the shape as a call of
// F with type arguments, a call of an index expression, a type
// instantiation or a conversion to a generic type, depending on the file;
// extractor.calleeName and conversionName map each reading to this one.
// "" for other functions (a parenthesized expression, a function literal,
// a type in a conversion, a call's result, an index that is a literal or
// an operation).
func goFastCallee(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.IndexExpr:
		switch f.Index.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.StarExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
			return goFastName(f.X)
		}
		return ""
	case *ast.IndexListExpr:
		return goFastName(f.X)
	}
	return goFastName(c.Fun)
}

// goFastName is the name of x when x is an identifier, the field's when
// it is a selector, else "": the name of a call of x, or of x[…](…).
func goFastName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// goFast carries the state of one ParseGoFast extraction.
type goFast struct {
	f        *File
	tf       *token.File
	x        *extractor // for symbols only (no tree)
	comments []*ast.Comment
	hash     [3]tokenHasher // content, signature, body (add)
}

func (g *goFast) off(p token.Pos) int { return g.tf.Offset(p) }

// fastSpan is a node's byte range [start, end) in the source.
type fastSpan struct{ start, end int }

func (g *goFast) span(n ast.Node) fastSpan { return fastSpan{g.off(n.Pos()), g.off(n.End())} }

// decls records the definitions of the file's declarations as extractGo
// does; false for a shape the fast path does not vouch for.
func (g *goFast) decls(af *ast.File) bool {
	prevEnd := g.off(af.Name.End()) // the package clause
	for _, d := range af.Decls {
		ds := g.span(d)
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				if d.Name.Name != "_" {
					g.add(fastDef{node: ds, prev: prevEnd, name: g.span(d.Name), nameS: d.Name.Name, kind: KindFunction,
						descs: []scip.Descriptor{{Name: d.Name.Name, Suffix: scip.Method}}, body: g.bodySpan(d.Body), header: true})
				}
			} else {
				recv, ok := goFastReceiver(d.Recv)
				if !ok {
					return false
				}
				if recv != "" {
					g.add(fastDef{node: ds, prev: prevEnd, name: g.span(d.Name), nameS: d.Name.Name, kind: KindMethod,
						descs:  []scip.Descriptor{{Name: recv, Suffix: scip.Type}, {Name: d.Name.Name, Suffix: scip.Method}},
						parent: g.x.symbol(scip.Descriptor{Name: recv, Suffix: scip.Type}), body: g.bodySpan(d.Body), header: true})
				}
			}
		case *ast.GenDecl:
			// tree-sitter's Go grammar puts the parentheses of a var
			// declaration in a var_spec_list, where goGrouped does not
			// look: a var declaration of one spec is never grouped.
			grouped := d.Lparen.IsValid() && d.Tok != token.VAR
			single := len(d.Specs) == 1 && !grouped
			specPrev := prevEnd
			if d.Lparen.IsValid() {
				specPrev = g.off(d.Lparen) + 1
			}
			for _, spec := range d.Specs {
				ss := g.span(spec)
				node, prev := ss, specPrev
				if single {
					node, prev = ds, prevEnd
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					g.goType(node, prev, s)
				case *ast.ValueSpec:
					kind := KindConst
					if d.Tok == token.VAR {
						kind = KindVar
					}
					for k, nm := range s.Names {
						if k > 0 && kind == KindConst {
							// tree-sitter's Go grammar puts the commas
							// between a const spec's names under its
							// "name" field too, so extractGo records a
							// definition named "," for each.
							c := bytes.IndexByte(g.f.Src[g.off(s.Names[k-1].End()):g.off(nm.Pos())], ',')
							if c < 0 {
								return false
							}
							c += g.off(s.Names[k-1].End())
							g.add(fastDef{node: node, prev: prev, name: fastSpan{c, c + 1}, nameS: ",", kind: kind, descs: []scip.Descriptor{{Name: ",", Suffix: scip.Term}}})
						}
						if nm.Name == "_" {
							continue
						}
						g.add(fastDef{node: node, prev: prev, name: g.span(nm), nameS: nm.Name, kind: kind, descs: []scip.Descriptor{{Name: nm.Name, Suffix: scip.Term}}})
					}
				}
				specPrev = ss.end
			}
		}
		prevEnd = ds.end
	}
	return true
}

func (g *goFast) bodySpan(b *ast.BlockStmt) *fastSpan {
	if b == nil {
		return nil
	}
	s := g.span(b)
	return &s
}

// goFastReceiver returns the base type name of a method receiver as
// goReceiverType finds it in the syntax tree; ok is false for a shape it
// does not handle.
func goFastReceiver(recv *ast.FieldList) (string, bool) {
	if len(recv.List) == 0 {
		return "", true
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.Ident:
			return x.Name, true
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		default:
			return "", false
		}
	}
}

// goType records a type spec (node: the spec, or the whole declaration
// when it is alone and not grouped) and its fields or interface methods.
func (g *goFast) goType(node fastSpan, prev int, s *ast.TypeSpec) {
	kind := KindType
	switch s.Type.(type) {
	case *ast.StructType:
		kind = KindStruct
	case *ast.InterfaceType:
		kind = KindInterface
	}
	body := g.span(s.Type)
	base := []scip.Descriptor{{Name: s.Name.Name, Suffix: scip.Type}}
	sym := g.add(fastDef{node: node, prev: prev, name: g.span(s.Name), nameS: s.Name.Name, kind: kind, descs: base, body: &body, header: true})
	switch t := s.Type.(type) {
	case *ast.StructType:
		g.fields(t, base, sym)
	case *ast.InterfaceType:
		prevEnd := g.off(t.Methods.Opening) + 1
		for _, m := range t.Methods.List {
			ms := g.span(m)
			if _, isFunc := m.Type.(*ast.FuncType); isFunc && len(m.Names) == 1 {
				nm := m.Names[0]
				g.add(fastDef{node: ms, prev: prevEnd, name: g.span(nm), nameS: nm.Name, kind: KindMethod,
					descs: append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: nm.Name, Suffix: scip.Term}), parent: sym, header: true})
			}
			prevEnd = ms.end
		}
	}
}

// fields records the fields of a struct type, recursing into inline
// struct types, as goFields does.
func (g *goFast) fields(st *ast.StructType, base []scip.Descriptor, parent string) {
	prevEnd := g.off(st.Fields.Opening) + 1
	for _, fd := range st.Fields.List {
		fs := g.span(fd)
		names := fd.Names
		if len(names) == 0 {
			if en := goFastEmbedded(fd.Type); en != nil {
				names = []*ast.Ident{en}
			}
		}
		for _, nm := range names {
			descs := append(append([]scip.Descriptor{}, base...), scip.Descriptor{Name: nm.Name, Suffix: scip.Term})
			sym := g.add(fastDef{node: fs, prev: prevEnd, name: g.span(nm), nameS: nm.Name, kind: KindField, descs: descs, parent: parent})
			if inner, ok := fd.Type.(*ast.StructType); ok {
				g.fields(inner, descs, sym)
			}
		}
		prevEnd = fs.end
	}
}

// goFastEmbedded returns the name an embedded field takes from its type
// (embeddedName).
func goFastEmbedded(t ast.Expr) *ast.Ident {
	switch x := t.(type) {
	case *ast.Ident:
		return x
	case *ast.StarExpr:
		return goFastEmbedded(x.X)
	case *ast.IndexExpr:
		return goFastEmbedded(x.X)
	case *ast.IndexListExpr:
		return goFastEmbedded(x.X)
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// fastDef is defSpec with byte ranges instead of syntax nodes; prev is
// the end of the previous sibling of the node in the syntax tree (where
// its doc comment search stops).
type fastDef struct {
	node   fastSpan
	prev   int
	name   fastSpan
	nameS  string
	kind   string
	descs  []scip.Descriptor
	parent string
	body   *fastSpan
	header bool
}

// add records a definition as extractor.add does and returns its symbol.
func (g *goFast) add(s fastDef) string {
	f := g.f
	start, end := s.node.start, s.node.end
	sym := g.x.symbol(s.descs...)
	// The tokens of the node, hashed as HashTokens hashes f.Tokens(start,
	// end) (node bounds are token bounds, so no token is cut), without
	// making their texts.
	all, sig, body := &g.hash[0], &g.hash[1], &g.hash[2]
	all.reset()
	sig.reset()
	body.reset()
	bs, be := -1, -1
	if s.body != nil {
		bs, be = s.body.start, s.body.end
	}
	i := sort.Search(len(f.spans), func(i int) bool { return int(f.spans[i].end) > start })
	for ; i < len(f.spans) && int(f.spans[i].start) < end; i++ {
		ts, te := int(f.spans[i].start), int(f.spans[i].end)
		tok := f.Src[ts:te]
		all.add(tok)
		isName := ts >= s.name.start && te <= s.name.end
		switch {
		case bs >= 0 && ts >= bs && te <= be:
			body.add(tok)
		case isName:
		case s.header:
			sig.add(tok)
		default:
			body.add(tok)
		}
	}
	doc, docLine := g.precedingDoc(start, s.prev)
	r := f.Lines.RangeOf(start, end)
	if docLine < 0 || docLine > r.StartLine {
		docLine = r.StartLine
	}
	d := Definition{
		Symbol:      sym,
		Name:        s.nameS,
		Kind:        s.kind,
		Parent:      s.parent,
		Path:        f.Path,
		Doc:         doc,
		Range:       r,
		DocLine:     docLine,
		NameRange:   f.Lines.RangeOf(s.name.start, s.name.end),
		ContentHash: all.sum(),
		BodyHash:    body.sum(),
		BodyTokens:  body.n,
	}
	if s.header {
		d.SignatureHash = sig.sum()
		if d.SignatureHash == "" {
			d.SignatureHash = "-"
		}
	}
	f.Defs = append(f.Defs, d)
	return sym
}

// precedingDoc is extractor.precedingDoc over the comments lying between
// prev (the end of the node's previous sibling) and start: the comment
// block directly above, without a blank line, not a trailing comment of
// the previous sibling's line.
func (g *goFast) precedingDoc(start, prev int) (string, int) {
	// The comments between prev and start, in order.
	hi := sort.Search(len(g.comments), func(i int) bool { return g.off(g.comments[i].Pos()) >= start })
	lo := hi
	for lo > 0 && g.off(g.comments[lo-1].Pos()) >= prev {
		lo--
	}
	lines := g.f.Lines
	var parts []string
	line := -1
	curStart := lines.LineOf(start)
	for k := hi - 1; k >= lo; k-- {
		c := g.comments[k]
		// The comment's text and end from the source: go/ast drops the
		// carriage returns of a comment's Text, and tree-sitter's node
		// keeps them.
		cs := g.off(c.Pos())
		ce := cs + lineLen(g.f.Src[cs:])
		if strings.HasPrefix(c.Text, "/*") {
			ce = cs + 2 + bytes.Index(g.f.Src[cs+2:], []byte("*/")) + 2
		}
		if lines.LineOf(ce)+1 < curStart {
			break
		}
		// The previous sibling of the comment: another comment, or the
		// node ending at prev (none at the file's start).
		if k == lo && prev > 0 && lines.LineOf(prev) == lines.LineOf(cs) {
			break
		}
		parts = append(parts, cleanComment(string(g.f.Src[cs:ce])))
		line = lines.LineOf(cs)
		curStart = line
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.TrimSpace(strings.Join(parts, "\n")), line
}

// goFastTokens returns the token stream of Go source as tree-sitter's Go
// grammar has its leaves (see ParseGoFast); ok is false when the source
// does not scan cleanly.
func goFastTokens(src []byte) (spans []tokenSpan, ok bool) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	bad := false
	s.Init(fset.AddFile("", -1, len(src)), src, func(token.Position, string) { bad = true }, 0)
	spans = make([]tokenSpan, 0, len(src)/4)
	emit := func(a, b int) { spans = append(spans, tokenSpan{int32(a), int32(b)}) }
	base := fset.File(token.Pos(1)).Base()
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		p := int(pos) - base
		switch {
		case tok == token.SEMICOLON && lit != ";":
			continue // inserted at a line end or at the end: not in the source
		case tok == token.STRING && len(lit) > 0 && lit[0] == '`':
			e := bytes.IndexByte(src[p+1:], '`')
			if e < 0 {
				return nil, false
			}
			e += p + 1
			emit(p, p+1)
			if e > p+1 {
				emit(p+1, e)
			}
			emit(e, e+1)
		case tok == token.STRING:
			if len(lit) < 2 || lit[0] != '"' || string(src[p:p+len(lit)]) != lit {
				return nil, false
			}
			stringTokens(lit, p, emit)
		default:
			text := lit
			if text == "" {
				text = tok.String()
			}
			if p+len(text) > len(src) || string(src[p:p+len(text)]) != text {
				return nil, false
			}
			emit(p, p+len(text))
		}
	}
	if bad {
		return nil, false
	}
	return spans, true
}

// stringTokens emits the leaves tree-sitter's Go grammar makes of an
// interpreted string literal lit at offset p: the quotes, the runs of
// content (interpreted_string_literal_content, /[^"\n\\]+/) and the escape
// sequences (escape_sequence: a backslash and one of /[^xuU]/,
// /\d{2,3}/, /x[0-9a-fA-F]{2}/, /u[0-9a-fA-F]{4}/, /U[0-9a-fA-F]{8}/,
// the longest match).
func stringTokens(lit string, p int, emit func(a, b int)) {
	emit(p, p+1)
	i, n := 1, len(lit)-1
	for i < n {
		if lit[i] != '\\' {
			j := i
			for j < n && lit[j] != '\\' {
				j++
			}
			emit(p+i, p+j)
			i = j
			continue
		}
		j := i + 1 // past the backslash
		switch c := lit[j]; {
		case c >= '0' && c <= '9':
			k := j
			for k < n && k < j+3 && lit[k] >= '0' && lit[k] <= '9' {
				k++
			}
			if k-j < 2 {
				k = j + 1
			}
			j = k
		case c == 'x':
			j += 3
		case c == 'u':
			j += 5
		case c == 'U':
			j += 9
		default:
			j++
		}
		j = min(j, n)
		emit(p+i, p+j)
		i = j
	}
	emit(p+n, p+n+1)
}

// Reparsable reports whether Reparse and ReparseLean can re-parse only the
// changed declarations of f's next version: false for a File of
// ParseGoFast or ParseRegions, plain text, or a released one (they parse
// the next version whole).
func (f *File) Reparsable() bool {
	return !f.plain && !f.partial && len(f.tops) > 0 && (f.spans != nil || len(f.segs) > 0)
}

// tokenHasher computes HashTokens of a token stream fed one text at a
// time: the texts joined by NUL bytes are collected in buf (reused from
// one definition to the next) and hashed at once.
type tokenHasher struct {
	buf []byte
	n   int
}

func (t *tokenHasher) reset() { t.buf, t.n = t.buf[:0], 0 }

func (t *tokenHasher) add(text []byte) {
	if t.n > 0 {
		t.buf = append(t.buf, 0)
	}
	t.buf = append(t.buf, text...)
	t.n++
}

// sum returns the hex SHA-256 of the texts joined by NUL bytes, "" for
// none (HashTokens).
func (t *tokenHasher) sum() string {
	if t.n == 0 {
		return ""
	}
	h := sha256.Sum256(t.buf)
	return hex.EncodeToString(h[:])
}
