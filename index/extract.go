package index

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/scip"
)

// Definition kinds stored in Definition.Kind.
const (
	KindFunction  = "function"
	KindMethod    = "method"
	KindClass     = "class"
	KindStruct    = "struct"
	KindInterface = "interface"
	KindType      = "type"
	KindEnum      = "enum"
	KindField     = "field"
	KindConst     = "const"
	KindVar       = "var"
	KindNamespace = "namespace"
)

// Definition is one definition found in a file: a function, method, type,
// field or top-level const/var, with its SCIP symbol and the hashes gloss
// compares to decide whether the code a memory describes changed.
type Definition struct {
	// Symbol is the SCIP symbol string, in the format of the language's
	// official SCIP indexer.
	Symbol string `json:"symbol"`
	// Name is the identifier as written (a constructor is "constructor").
	Name string `json:"name"`
	// Kind is one of the Kind* constants.
	Kind string `json:"kind"`
	// Parent is the SCIP symbol of the enclosing definition, or "".
	Parent string `json:"parent,omitempty"`
	// Path is the workspace-relative, slash-separated file path.
	Path string `json:"path"`
	// Doc is the doc comment (Go/TS comment block above, Python docstring)
	// with comment markers removed.
	Doc string `json:"doc,omitempty"`
	// Range spans the declaration from its first token (decorators
	// included, doc comment excluded) to its last.
	Range Range `json:"range"`
	// DocLine is the 0-based first line of the doc comment, or
	// Range.StartLine when there is none.
	DocLine int `json:"doc_line"`
	// NameRange spans the defining identifier.
	NameRange Range `json:"name_range"`
	// SignatureHash hashes the normalized header tokens (receiver,
	// parameters, results, type parameters, decorators, heritage) without
	// the name; "" for kinds without a header (fields, consts, vars).
	SignatureHash string `json:"signature_hash,omitempty"`
	// BodyHash hashes the normalized body tokens (for kinds without a body,
	// every token but the name).
	BodyHash string `json:"body_hash,omitempty"`
	// ContentHash hashes all normalized tokens of Range.
	ContentHash string `json:"content_hash"`
	// BodyTokens is the number of tokens behind BodyHash; rename detection
	// by body hash ignores trivial bodies.
	BodyTokens int `json:"body_tokens"`
}

// Call is a syntactic reference from a definition to a name it calls.
type Call struct {
	// Caller is the SCIP symbol of the innermost enclosing definition, or
	// "" at file level.
	Caller string `json:"caller"`
	// Name is the called identifier (the selector for method calls).
	Name string `json:"name"`
	// Line is the 0-based line of the call.
	Line int `json:"line"`
}

// File is one parsed source file with its definitions. A File holds the
// syntax tree until Release is called; Tokens needs the tree.
type File struct {
	Path  string
	Lang  *Language
	Src   []byte
	Lines *Lines
	Defs  []Definition
	Calls []Call
	// Imports are the modules the file imports, without targets (see
	// Project.ResolveImports); filled by Parse, empty after Reparse.
	Imports []Import
	// HasError reports a syntax error somewhere in the tree; definitions are
	// still extracted from the parts that parsed.
	HasError bool

	tree      *ts.Tree
	plain     bool
	lang      *Language
	skipNodes map[*ts.Node]bool
	// segs are the syntax trees covering the file, in order: one for a full
	// parse; several when Reparse reused parts of an earlier parse.
	segs []segment
	// owned are the trees Release frees (a reparse shares the others).
	owned []*ts.Tree
	// tops are the top-level nodes (byte ranges) for Reparse.
	tops  []topNode
	goPkg string
	// base is the last clean parse a ReparseTolerant result with a syntax
	// error was spliced from (its trees are shared), which the next
	// ReparseTolerant starts from.
	base *File
	// spans and srcHash are set by DropTree (the trees are then gone).
	spans   []tokenSpan
	srcHash string
	// packed is the token stream of a File built from its stored record,
	// kept encoded (Store.LoadTokens); nil otherwise.
	packed *packedTokens
	// stream is the whole token stream of a full parse (Parse), taken once
	// before extraction when the language marks no skip nodes: Tokens
	// answers definitions' windows from it (tokenRanges) and the token
	// record reuses it, instead of a tree walk per definition and one
	// more for the file. Release drops it.
	stream []tokenSpan
	// skipped are the byte ranges of the nodes extraction marked in
	// skipNodes so far (Python docstrings), sorted: while extraction runs
	// the windows of stream leave their tokens out, as the tree walk
	// leaves out the marked nodes. skipOverlap: two of them overlap, so
	// Tokens walks the tree instead. Both are cleared after extraction.
	skipped     []tokenRange
	skipOverlap bool
	// partial: made by ParseRegions (some declarations only).
	partial bool
}

// segment is one syntax tree covering bytes [from, to) of a file; a
// position in the tree plus shift is a position in the file.
type segment struct {
	tree     *ts.Tree
	src      []byte
	skip     map[*ts.Node]bool
	from, to int
	shift    int
}

// topNode is a top-level node of a file.
type topNode struct {
	start, end int
	comment    bool
}

// Release frees the syntax trees this File owns. Tokens returns nil
// afterwards. A File made by Reparse shares trees with the File it was
// made from: release neither while the other is in use.
func (f *File) Release() {
	for _, t := range f.owned {
		t.Release()
	}
	f.owned, f.segs, f.tree, f.stream = nil, nil, nil, nil
}

// PlainFile returns a File for text gloss cannot parse (no language
// registered): no definitions, and tokens split on whitespace.
func PlainFile(path string, src []byte) *File {
	return &File{Path: path, Src: src, Lines: NewLines(src), plain: true}
}

// PackageContext supplies what symbol construction needs beyond the file:
// the SCIP package and the leading descriptors (Go package path, Python
// module, TypeScript file path) of a file.
type PackageContext interface {
	// SymbolPrefix returns the package and the descriptors that start every
	// global symbol defined in the file at path (workspace-relative). goPkg
	// is the Go package clause name ("" for other languages); scip-go puts
	// external test packages (name ending in _test) under "<path>_test".
	SymbolPrefix(lang *Language, path string, goPkg string) (scip.Package, []scip.Descriptor)
}

// Parse parses src as a file of language lang and extracts its definitions
// and calls. parser must be a parser for lang (parsers are not safe for
// concurrent use). The returned File keeps its tree: call Release when done.
func Parse(parser *ts.Parser, lang *Language, path string, src []byte, pc PackageContext) (*File, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if tree == nil || tree.RootNode() == nil {
		return nil, fmt.Errorf("parse %s: no syntax tree", path)
	}
	if tree.ParseStopReason() == ts.ParseStopCancelled && !timedOut(parser) {
		// Cut short by Indexer.Interrupt or a WithStop flag: no extraction
		// from a partial tree. (A timeout keeps its partial tree.)
		tree.Release()
		return nil, ErrInterrupted
	}
	return extractTree(tree, lang, path, src, pc), nil
}

// extractTree is Parse after the parse: the File of tree, the syntax tree
// of src, with its definitions, calls and imports extracted. The File owns
// tree.
func extractTree(tree *ts.Tree, lang *Language, path string, src []byte, pc PackageContext) *File {
	f := &File{Path: path, Lang: lang, Src: src, Lines: NewLines(src), tree: tree, lang: lang, skipNodes: map[*ts.Node]bool{}, owned: []*ts.Tree{tree}}
	f.segs = []segment{{tree: tree, src: src, skip: f.skipNodes, from: 0, to: len(src)}}
	f.HasError = tree.RootNode().HasError()
	if !lang.walkDefs && len(src) < 1<<31 {
		f.stream = f.compactTokens()
	}
	buf := addBuffers.Get().(*addScratch)
	x := &extractor{f: f, lang: lang.TS(), pc: pc, toks: buf.toks, hash: buf.hash}
	lang.extract(x)
	switch {
	case f.stream == nil || len(f.skipped) == 0:
	case f.skipOverlap:
		f.stream = f.compactTokens()
	default:
		// The stream the tree walk gives now that every skip node is
		// marked.
		f.dropSkipped()
	}
	f.skipped, f.skipOverlap = nil, false
	root := tree.RootNode()
	for i := 0; i < root.ChildCount(); i++ {
		// Unnamed top-level tokens (a stray "{" the parser accepted
		// without flagging an error) are not nodes a region can end on.
		if c := root.Child(i); c != nil && c.IsNamed() {
			f.tops = append(f.tops, topNode{start: int(c.StartByte()), end: int(c.EndByte()), comment: isCommentType(c.Type(lang.TS()))})
		}
	}
	sort.SliceStable(f.Defs, func(i, j int) bool { return f.Defs[i].Range.StartByte < f.Defs[j].Range.StartByte })
	x.collectCalls()
	x.collectImports()
	buf.keep(x)
	return f
}

// addScratch holds extractor.add's buffers (its toks and hash) between
// files, in addBuffers: one file's definitions grow them to the size of
// its largest definition, and the next file starts from that size instead
// of growing them again from nothing.
type addScratch struct {
	toks []tokenRange
	hash [3]tokenHasher
}

// addBuffers pools addScratch values (sync.Pool: the collector may drop
// them, and each parse worker takes its own).
var addBuffers = sync.Pool{New: func() any { return new(addScratch) }}

// maxPooledScratch is the largest buffer addScratch.keep returns to the
// pool, in bytes (a tokenHasher's text) or token ranges: a huge
// definition's buffers are left to the collector.
const maxPooledScratch = 1 << 20

// keep takes back x's buffers, emptied, and returns b to addBuffers unless
// one of them is over maxPooledScratch.
func (b *addScratch) keep(x *extractor) {
	if cap(x.toks) > maxPooledScratch {
		return
	}
	for _, h := range x.hash {
		if cap(h.buf) > maxPooledScratch {
			return
		}
	}
	b.toks = x.toks[:0]
	for i := range x.hash {
		b.hash[i] = tokenHasher{buf: x.hash[i].buf[:0]}
	}
	x.toks, x.hash = nil, [3]tokenHasher{}
	addBuffers.Put(b)
}

// timedOut reports whether the parser's cancellation flag holds
// stopTimeout: its parse was stopped by Indexer.ParseSource's deadline,
// not interrupted.
func timedOut(parser *ts.Parser) bool {
	flag := parser.CancellationFlag()
	return flag != nil && atomic.LoadUint32(flag) == stopTimeout
}

// extractor carries the state of one file's extraction.
type extractor struct {
	f    *File
	lang *ts.Language
	pc   PackageContext
	pkg  scip.Package
	pre  []scip.Descriptor
	// toks and hash are add's buffers, reused from one definition to the
	// next: the definition's token ranges and its content, body and
	// signature hashes.
	toks []tokenRange
	hash [3]tokenHasher
	// types caches the node types of lang.
	types nodeTypes
}

func (x *extractor) typ(n *ts.Node) string {
	if n == nil {
		return ""
	}
	return x.types.of(n, x.lang)
}

// nodeTypes caches Node.Type by grammar symbol for one language (Type
// depends on the symbol alone, and the library's unescapes the symbol
// name at each call). The zero value is ready; it is not safe for
// concurrent use.
type nodeTypes struct {
	names []string
	known []bool
}

// of returns n.Type(lang), computing it once per symbol.
func (c *nodeTypes) of(n *ts.Node, lang *ts.Language) string {
	sym := int(n.Symbol())
	if c.names == nil {
		c.names = make([]string, len(lang.SymbolNames))
		c.known = make([]bool, len(lang.SymbolNames))
	}
	if sym >= len(c.names) { // the error symbol, or none
		return n.Type(lang)
	}
	if !c.known[sym] {
		c.names[sym], c.known[sym] = n.Type(lang), true
	}
	return c.names[sym]
}

func (x *extractor) field(n *ts.Node, name string) *ts.Node {
	if n == nil {
		return nil
	}
	return n.ChildByFieldName(name, x.lang)
}

func (x *extractor) text(n *ts.Node) string {
	if n == nil {
		return ""
	}
	return string(x.f.Src[n.StartByte():n.EndByte()])
}

// children returns the direct children of n.
func (x *extractor) children(n *ts.Node) []*ts.Node {
	if n == nil {
		return nil
	}
	cnt := n.ChildCount()
	out := make([]*ts.Node, 0, cnt)
	for i := 0; i < cnt; i++ {
		if c := n.Child(i); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// childOfType returns the first direct child of one of the given types.
func (x *extractor) childOfType(n *ts.Node, types ...string) *ts.Node {
	for _, c := range x.children(n) {
		t := x.typ(c)
		for _, want := range types {
			if t == want {
				return c
			}
		}
	}
	return nil
}

func (x *extractor) symbol(descs ...scip.Descriptor) string {
	all := make([]scip.Descriptor, 0, len(x.pre)+len(descs))
	all = append(all, x.pre...)
	all = append(all, descs...)
	return scip.Format(x.pkg, all...)
}

// defSpec describes one definition to record.
type defSpec struct {
	node   *ts.Node // the whole definition (decorators included)
	anchor *ts.Node // node whose preceding comments form the doc (default node)
	name   *ts.Node
	nameS  string // name when it differs from name's text (e.g. <constructor>)
	kind   string
	descs  []scip.Descriptor
	parent string
	body   *ts.Node // body node; nil for kinds without a body
	header bool     // whether the kind has a signature (callables, types)
	doc    string   // docstring, when the language puts it in the body
	// sibs, when set, is the parent of the node the doc comment is read
	// above (anchor, else node) and at that node's index among its
	// children (Node.Child): precedingDoc then reads the siblings before
	// it from sibs instead of Node.PrevSibling, which wires the parent
	// links of the whole tree at its first call.
	sibs *ts.Node
	at   int
}

// add records a definition and returns its symbol.
func (x *extractor) add(s defSpec) string {
	f := x.f
	start, end := int(s.node.StartByte()), int(s.node.EndByte())
	sym := x.symbol(s.descs...)
	name := s.nameS
	if name == "" {
		name = x.text(s.name)
	}
	// The tokens of f.Tokens(start, end), hashed as HashTokens hashes
	// them, without making their texts.
	x.toks = f.tokenRanges(x.toks[:0], start, end)
	var nameStart, nameEnd int = -1, -1
	if s.name != nil {
		nameStart, nameEnd = int(s.name.StartByte()), int(s.name.EndByte())
	}
	all, sig, body := &x.hash[0], &x.hash[1], &x.hash[2]
	all.reset()
	sig.reset()
	body.reset()
	bs, be := -1, -1
	if s.body != nil {
		bs, be = int(s.body.StartByte()), int(s.body.EndByte())
	}
	for _, t := range x.toks {
		text := f.Src[t.start:t.end]
		all.add(text)
		isName := t.start >= nameStart && t.end <= nameEnd && nameStart >= 0
		switch {
		case bs >= 0 && t.start >= bs && t.end <= be:
			body.add(text)
		case isName:
		case s.header:
			sig.add(text)
		default:
			body.add(text)
		}
	}
	anchor := s.anchor
	if anchor == nil {
		anchor = s.node
	}
	doc, docLine := x.precedingDoc(anchor, s.sibs, s.at)
	if s.doc != "" {
		doc = s.doc
	}
	r := f.Lines.RangeOf(start, end)
	if docLine < 0 || docLine > r.StartLine {
		docLine = r.StartLine
	}
	d := Definition{
		Symbol:      sym,
		Name:        name,
		Kind:        s.kind,
		Parent:      s.parent,
		Path:        f.Path,
		Doc:         doc,
		Range:       r,
		DocLine:     docLine,
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
	if s.name != nil {
		d.NameRange = f.Lines.RangeOf(nameStart, nameEnd)
	} else {
		d.NameRange = f.Lines.RangeOf(start, start)
	}
	f.Defs = append(f.Defs, d)
	return sym
}

// precedingDoc returns the comment block directly above n (no blank line
// between) with markers stripped, and the 0-based line it starts on (-1 when
// there is none). sibs, when not nil, is n's parent and at n's index in it
// (prevSibling).
func (x *extractor) precedingDoc(n, sibs *ts.Node, at int) (string, int) {
	var parts []string
	line := -1
	cur := n
	for {
		p := prevSibling(cur, sibs, at)
		if p == nil || !isCommentType(x.typ(p)) {
			break
		}
		if int(p.EndPoint().Row)+1 < int(cur.StartPoint().Row) {
			break
		}
		// A trailing comment on the previous statement's line is not a doc.
		if q := prevSibling(p, sibs, at-1); q != nil && q.EndPoint().Row == p.StartPoint().Row && !isCommentType(x.typ(q)) {
			break
		}
		parts = append(parts, cleanComment(x.text(p)))
		line = int(p.StartPoint().Row)
		cur = p
		at--
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.TrimSpace(strings.Join(parts, "\n")), line
}

// prevSibling returns the sibling before n, n.PrevSibling(), or when
// parent is not nil the child before index at of parent (n is
// parent.Child(at)): the same node without the parent links that
// PrevSibling wires for the whole tree at its first call (pprof, Python
// cold index: ~0.1 CPU-s of ~10).
func prevSibling(n, parent *ts.Node, at int) *ts.Node {
	if parent == nil {
		return n.PrevSibling()
	}
	if at <= 0 {
		return nil
	}
	return parent.Child(at - 1)
}

// cleanComment strips //, #, /* */ and leading * markers from a comment.
func cleanComment(c string) string {
	c = strings.TrimSpace(c)
	switch {
	case strings.HasPrefix(c, "/*"):
		c = strings.TrimSuffix(strings.TrimPrefix(c, "/*"), "*/")
		c = strings.TrimPrefix(c, "*")
		lines := strings.Split(c, "\n")
		for i, l := range lines {
			l = strings.TrimSpace(l)
			l = strings.TrimPrefix(l, "*")
			lines[i] = strings.TrimSpace(l)
		}
		return strings.TrimSpace(strings.Join(lines, "\n"))
	case strings.HasPrefix(c, "//"):
		return strings.TrimSpace(strings.TrimPrefix(c, "//"))
	case strings.HasPrefix(c, "#"):
		return strings.TrimSpace(strings.TrimPrefix(c, "#"))
	}
	return c
}

// cleanDocstring strips the quotes of a Python docstring literal.
func cleanDocstring(s string) string {
	s = strings.TrimLeft(s, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			return strings.TrimSpace(s[len(q) : len(s)-len(q)])
		}
	}
	return strings.TrimSpace(s)
}

// collectCalls records call sites with the innermost enclosing definition.
func (x *extractor) collectCalls() {
	f := x.f
	var walk func(n *ts.Node)
	walk = func(n *ts.Node) {
		t := x.typ(n)
		if t == "call_expression" || t == "call" || t == "type_conversion_expression" {
			name := ""
			if t == "type_conversion_expression" {
				name = x.conversionName(x.field(n, "type"))
			} else {
				name = x.calleeName(x.field(n, "function"))
			}
			if name != "" {
				off := int(n.StartByte())
				caller := ""
				if i := f.enclosing(off, off); i >= 0 {
					caller = f.Defs[i].Symbol
				}
				f.Calls = append(f.Calls, Call{Caller: caller, Name: name, Line: f.Lines.LineOf(off)})
			}
		}
		for i, cnt := 0, n.ChildCount(); i < cnt; i++ {
			if c := n.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(f.tree.RootNode())
}

// calleeName returns the name collectCalls records for a call of fn (a
// call_expression's or call's function): an identifier, a selector's
// field (Go), an attribute (Python), a member's property (TypeScript); for
// a Go index expression, X[I](…), the name of X when I may be a type (an
// identifier, a selector, a pointer type, an instantiated type), and of
// a type instantiation, F[T, U](…), the name of F, since Go's grammar reads a
// call with explicit type arguments, F[T](…), either way (as a call of F
// with type arguments, or of an index expression: gotreesitter's choice
// depends on the file) and both are read as a call of F; "" for other
// functions (a parenthesized expression, a call's result, an index that
// is a literal or an operation, X[0](…)). ParseGoFast reads go/ast's
// call shapes the same way (goFastCallee).
func (x *extractor) calleeName(fn *ts.Node) string {
	switch x.typ(fn) {
	case "identifier":
		return x.text(fn)
	case "selector_expression":
		return x.text(x.field(fn, "field"))
	case "attribute":
		return x.text(x.field(fn, "attribute"))
	case "member_expression":
		return x.text(x.field(fn, "property"))
	case "index_expression":
		idx := x.field(fn, "index")
		switch x.typ(idx) {
		case "identifier", "selector_expression", "index_expression", "generic_type", "type_instantiation_expression":
		case "unary_expression": // *T, a pointer type; not &v, -v, …
			if op := x.field(idx, "operator"); op == nil || x.text(op) != "*" {
				return ""
			}
		default:
			return ""
		}
		if op := x.field(fn, "operand"); x.typ(op) == "identifier" || x.typ(op) == "selector_expression" {
			return x.calleeName(op)
		}
	case "type_instantiation_expression": // F[T, U](…)
		return x.conversionName(x.field(fn, "type"))
	}
	return ""
}

// conversionName returns the name collectCalls records for a Go
// type_conversion_expression of type typ: the type's name when it is a
// named type, qualified or not, with or without type arguments (T(v),
// pkg.T(v), F[T](v)), "" for other types ([]byte(v), (*T)(v)). Go's
// grammar reads a call of a name with one argument, and a call with type
// arguments, as a conversion in some files and as a call in others
// (gotreesitter's choice depends on the file), and go/ast cannot tell
// them apart either: both are read as a call of the name, as ParseGoFast
// reads them.
func (x *extractor) conversionName(typ *ts.Node) string {
	switch x.typ(typ) {
	case "type_identifier":
		return x.text(typ)
	case "qualified_type":
		return x.text(x.field(typ, "name"))
	case "generic_type":
		return x.conversionName(x.field(typ, "type"))
	}
	return ""
}

// Enclosing returns the innermost definition whose Range contains the byte
// range [start, end], or the zero Definition when none does.
func (f *File) Enclosing(start, end int) Definition {
	if i := f.enclosing(start, end); i >= 0 {
		return f.Defs[i]
	}
	return Definition{}
}

// enclosing is Enclosing as an index into f.Defs, -1 for none (the first
// of equally short ones).
func (f *File) enclosing(start, end int) int {
	best, bestLen := -1, -1
	for i := range f.Defs {
		r := &f.Defs[i].Range
		if r.StartByte <= start && end <= r.EndByte {
			if l := r.EndByte - r.StartByte; bestLen < 0 || l < bestLen {
				best, bestLen = i, l
			}
		}
	}
	return best
}
