package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"slices"
	"strings"
)

// Oracle statuses, the same words gloss uses for anchors.
const (
	StatusFresh            = "fresh"
	StatusMoved            = "moved"
	StatusChanged          = "changed"
	StatusSignatureChanged = "signature_changed"
	StatusDeleted          = "deleted"
)

// isStaleStatus reports whether an anchor status makes a memory stale.
func isStaleStatus(s string) bool {
	return s == StatusChanged || s == StatusSignatureChanged || s == StatusDeleted
}

// Tok is one token of a comment-free token stream.
type Tok struct {
	Kind token.Token
	Lit  string
}

// Func is one function or method declaration of one file version.
type Func struct {
	// Path is the repository-relative slash path of the file.
	Path string
	// Dir is path.Dir(Path): the package directory.
	Dir string
	// Pkg is the package clause's name (p or p_test).
	Pkg string
	// Recv is the receiver's base type name ("" for functions).
	Recv string
	// Name is the function's name.
	Name string
	// Start and End are the 1-based inclusive lines from the `func` keyword
	// to the closing brace (doc comment excluded).
	Start, End int
	// Header holds the tokens before the body's `{`, without the name.
	Header []Tok
	// Body holds the tokens of the body, braces included (nil if no body).
	Body []Tok
	// Raw is the source text from `func` to the closing brace.
	Raw string
	// Ordinal is the index of this declaration among those of the same
	// identity in the same file (init functions, build-tag variants).
	Ordinal int
}

// Key is the identity of a function: package directory (told apart from
// the external test package p_test that shares it), receiver base type and
// name. The package's name is not part of it, so renaming a package is no
// change of identity.
func (f *Func) Key() string {
	dir := f.Dir
	if strings.HasSuffix(f.Pkg, "_test") {
		dir += "\x00test"
	}
	return dir + "\x00" + f.Recv + "\x00" + f.Name
}

// Display is a readable name such as "pkg/dir.(T).Method"
// ("pkg/dir[p_test].F" for an external test package).
func (f *Func) Display() string {
	d := f.Dir
	if strings.HasSuffix(f.Pkg, "_test") {
		d += "[" + f.Pkg + "]"
	}
	if f.Recv != "" {
		return d + ".(" + f.Recv + ")." + f.Name
	}
	return d + "." + f.Name
}

func bodyFingerprint(toks []Tok) string {
	var b strings.Builder
	for _, t := range toks {
		fmt.Fprintf(&b, "%d\x00%s\x01", t.Kind, t.Lit)
	}
	return b.String()
}

// skipPath reports whether a path is outside the evaluation: not a .go file
// or inside vendor/ or testdata/.
func skipPath(p string) bool {
	if !strings.HasSuffix(p, ".go") {
		return true
	}
	for _, part := range strings.Split(p, "/") {
		if part == "vendor" || part == "testdata" {
			return true
		}
	}
	return false
}

type offTok struct {
	off int
	Tok
}

// ParseFuncs returns the function declarations of one Go source file in
// source order. It fails when the file does not parse.
func ParseFuncs(p string, src []byte) ([]*Func, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	// One comment-free token stream for the whole file.
	sfset := token.NewFileSet()
	sf := sfset.AddFile(p, -1, len(src))
	var sc scanner.Scanner
	var scanErr error
	sc.Init(sf, src, func(pos token.Position, msg string) {
		if scanErr == nil {
			scanErr = fmt.Errorf("%s: %s", pos, msg)
		}
	}, 0)
	var toks []offTok
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // automatically inserted
		}
		if lit == "" {
			lit = tok.String()
		}
		toks = append(toks, offTok{sf.Offset(pos), Tok{tok, lit}})
	}
	if scanErr != nil {
		return nil, scanErr
	}
	between := func(from, to int) []Tok { // tokens with from <= off < to
		i, _ := slices.BinarySearchFunc(toks, from, func(t offTok, o int) int { return t.off - o })
		var out []Tok
		for ; i < len(toks) && toks[i].off < to; i++ {
			out = append(out, toks[i].Tok)
		}
		return out
	}
	tf := fset.File(file.Pos())
	dir := path.Dir(p)
	var funcs []*Func
	seen := map[string]int{}
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		f := &Func{Path: p, Dir: dir, Pkg: file.Name.Name, Name: fd.Name.Name, Recv: recvBase(fd)}
		start := tf.Offset(fd.Pos())
		nameOff := tf.Offset(fd.Name.Pos())
		var headerEnd, end int
		if fd.Body != nil {
			headerEnd = tf.Offset(fd.Body.Lbrace)
			end = tf.Offset(fd.Body.Rbrace) + 1
			f.Body = between(headerEnd, end)
		} else {
			end = tf.Offset(fd.End())
			headerEnd = end
		}
		i, _ := slices.BinarySearchFunc(toks, start, func(t offTok, o int) int { return t.off - o })
		for ; i < len(toks) && toks[i].off < headerEnd; i++ {
			if toks[i].off != nameOff {
				f.Header = append(f.Header, toks[i].Tok)
			}
		}
		f.Start = tf.Line(fd.Pos())
		f.End = tf.Position(tf.Pos(end - 1)).Line
		f.Raw = string(src[start:end])
		k := f.Key()
		f.Ordinal = seen[k]
		seen[k]++
		funcs = append(funcs, f)
	}
	return funcs, nil
}

// recvBase returns the base type name of a method's receiver: pointers,
// parentheses and type parameters stripped.
func recvBase(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return fmt.Sprintf("%T", t)
		}
	}
}

// OracleResult is the oracle's verdict on one function of the parent.
type OracleResult struct {
	// Status is fresh, moved, changed, signature_changed or deleted.
	Status string `json:"status"`
	// Path, Start and End locate the function in the commit ("" / 0 when
	// deleted).
	Path  string `json:"path,omitempty"`
	Start int    `json:"start_line,omitempty"`
	End   int    `json:"end_line,omitempty"`
	// Renamed is set when the function was found by its body, not its
	// identity.
	Renamed bool `json:"renamed,omitempty"`
	// NewName is the function's name in the commit when it was renamed.
	NewName string `json:"new_name,omitempty"`
	// FormatOnly is set when the function's text changed but its token
	// streams did not (formatting or comment edits).
	FormatOnly bool `json:"format_only,omitempty"`
}

// Stale reports whether the oracle considers a memory on the function stale.
func (r OracleResult) Stale() bool { return isStaleStatus(r.Status) }

// Subject is one function of the parent that gets a memory, with the
// verdicts of the oracle and of each method.
type Subject struct {
	// Func is the declaration in the parent.
	Func *Func `json:"-"`
	// Oracle is the oracle's verdict.
	Oracle OracleResult `json:"oracle"`
	// LineHash is the line-hash baseline's verdict.
	LineHash Prediction `json:"line_hash"`
	// DiffMap is the diff-map baseline's verdict.
	DiffMap Prediction `json:"diff_map"`
	// Gloss is gloss's verdict (nil when gloss was not run or failed).
	Gloss *Prediction `json:"gloss,omitempty"`
}

// Prediction is one method's verdict on one memory.
type Prediction struct {
	// Stale is the method's staleness verdict.
	Stale bool `json:"stale"`
	// Status is gloss's anchor status (empty for the baselines).
	Status string `json:"status,omitempty"`
	// Path, Start and End are where the method thinks the code now is
	// (empty when unknown).
	Path  string `json:"path,omitempty"`
	Start int    `json:"start_line,omitempty"`
	End   int    `json:"end_line,omitempty"`
	// ID is the gloss memory id.
	ID string `json:"id,omitempty"`
}

// PairSource gives the oracle access to two revisions of a repository.
type PairSource struct {
	Git   *Git
	Blobs *BlobReader
	// Parent and Commit are the two revisions (P and C).
	Parent, Commit string

	parsed map[string]parsedFile         // key: rev + ":" + path
	dirs   map[string]map[string][]*Func // key: rev + ":" + dir; by Func.Key
}

// parsedFile is one file version as the oracle sees it.
type parsedFile struct {
	funcs  []*Func
	exists bool  // false when the file is not there
	err    error // parse error
}

// file parses path at rev once. The error is a git failure; a parse error
// is in the result.
func (s *PairSource) file(rev, p string) (parsedFile, error) {
	k := rev + ":" + p
	if pf, ok := s.parsed[k]; ok {
		return pf, nil
	}
	src, ok, err := s.Blobs.Get(rev, p)
	if err != nil {
		return parsedFile{}, err
	}
	var pf parsedFile
	if ok {
		pf.exists = true
		pf.funcs, pf.err = ParseFuncs(p, src)
	}
	if s.parsed == nil {
		s.parsed = map[string]parsedFile{}
	}
	s.parsed[k] = pf
	return pf, nil
}

// dir indexes by identity the functions of the files of one package
// directory at rev that parse.
func (s *PairSource) dir(ctx context.Context, rev, dir string) (map[string][]*Func, error) {
	k := rev + ":" + dir
	if d, ok := s.dirs[k]; ok {
		return d, nil
	}
	files, err := s.Git.ListGoFiles(ctx, rev, dir)
	if err != nil {
		return nil, err
	}
	d := map[string][]*Func{}
	for _, p := range files {
		pf, err := s.file(rev, p)
		if err != nil {
			return nil, err
		}
		for _, f := range pf.funcs { // none when it does not parse
			d[f.Key()] = append(d[f.Key()], f)
		}
	}
	if s.dirs == nil {
		s.dirs = map[string]map[string][]*Func{}
	}
	s.dirs[k] = d
	return d, nil
}

// PairOracle is the result of running the oracle on one commit pair.
type PairOracle struct {
	// Subjects are the functions of the parent's changed, deleted or
	// renamed files, in file then source order.
	Subjects []*Subject
	// Changes is the name-status list of the pair.
	Changes []Change
	// SkippedFiles lists files left out because a version does not parse.
	SkippedFiles []string
}

// RunOracle computes the oracle's verdicts for every function of the
// parent's version of each changed .go file.
func RunOracle(ctx context.Context, s *PairSource) (*PairOracle, error) {
	changes, err := s.Git.NameStatus(ctx, s.Parent, s.Commit)
	if err != nil {
		return nil, err
	}
	res := &PairOracle{Changes: changes}
	subjects, renamedTo, newFiles, err := s.subjects(changes, res)
	if err != nil {
		return nil, err
	}
	byBody, err := s.bodies(newFiles)
	if err != nil {
		return nil, err
	}
	var unmatched []*Subject
	for _, sub := range subjects {
		f := sub.Func
		cdir, err := s.dir(ctx, s.Commit, f.Dir)
		if err != nil {
			return nil, err
		}
		pdir, err := s.dir(ctx, s.Parent, f.Dir)
		if err != nil {
			return nil, err
		}
		match := matchIdentity(f, pdir[f.Key()], cdir[f.Key()], renamedTo)
		if match == nil {
			unmatched = append(unmatched, sub)
			continue
		}
		sub.Oracle = compare(f, match)
	}
	matchBodies(subjects, unmatched, byBody)
	res.Subjects = subjects
	return res, nil
}

// subjects returns the functions of the parent's version of each changed
// file (files whose either version does not parse are listed in
// res.SkippedFiles), the renames, and the commit-side changed files.
func (s *PairSource) subjects(changes []Change, res *PairOracle) ([]*Subject, map[string]string, []string, error) {
	renamedTo := map[string]string{} // parent path -> commit path
	var newFiles []string            // commit-side changed files
	var subjects []*Subject
	for _, c := range changes {
		if c.Status == 'R' {
			renamedTo[c.Old] = c.New
		}
		if c.New != "" && c.Status != 'D' && !skipPath(c.New) {
			newFiles = append(newFiles, c.New)
		}
		if c.Old == "" || c.Status == 'A' || c.Status == 'C' || skipPath(c.Old) {
			continue
		}
		old, err := s.file(s.Parent, c.Old)
		if err != nil {
			return nil, nil, nil, err
		}
		if !old.exists {
			continue
		}
		if old.err != nil {
			res.SkippedFiles = append(res.SkippedFiles, c.Old)
			continue
		}
		// A file whose new version does not parse cannot be judged.
		if c.New != "" {
			cur, err := s.file(s.Commit, c.New)
			if err != nil {
				return nil, nil, nil, err
			}
			if cur.err != nil {
				res.SkippedFiles = append(res.SkippedFiles, c.New)
				continue
			}
		}
		for _, f := range old.funcs {
			subjects = append(subjects, &Subject{Func: f})
		}
	}
	return subjects, renamedTo, newFiles, nil
}

// bodies indexes the functions of the commit's changed files by body
// fingerprint: the candidates for "moved/renamed by body".
func (s *PairSource) bodies(newFiles []string) (map[string][]*Func, error) {
	byBody := map[string][]*Func{}
	for _, p := range newFiles {
		cur, err := s.file(s.Commit, p)
		if err != nil {
			return nil, err
		}
		for _, f := range cur.funcs {
			if f.Body != nil {
				fp := bodyFingerprint(f.Body)
				byBody[fp] = append(byBody[fp], f)
			}
		}
	}
	return byBody, nil
}

// matchBodies judges the functions not found by identity: a body match
// that is unique both ways (one function with that body among the
// commit's changed files, one among the parent's) is a move or rename;
// anything else is deleted. Without the second condition every lost `{}`
// method would "move" to the one new empty function, and a deleted copy
// of a function would "move" onto the copy that stays.
func matchBodies(subjects, unmatched []*Subject, byBody map[string][]*Func) {
	inParent := map[string]int{}
	for _, sub := range subjects {
		if sub.Func.Body != nil {
			inParent[bodyFingerprint(sub.Func.Body)]++
		}
	}
	for _, sub := range unmatched {
		sub.Oracle = OracleResult{Status: StatusDeleted}
		if sub.Func.Body == nil {
			continue
		}
		fp := bodyFingerprint(sub.Func.Body)
		if c := byBody[fp]; len(c) == 1 && inParent[fp] == 1 {
			sub.Oracle = compare(sub.Func, c[0])
			sub.Oracle.Renamed = true
			if sub.Oracle.Status == StatusFresh {
				// Found under another identity: moved even in place.
				sub.Oracle.Status = StatusMoved
			}
			if c[0].Name != sub.Func.Name {
				sub.Oracle.NewName = c[0].Name
			}
			sub.Oracle.FormatOnly = false
		}
	}
}

// matchIdentity finds the commit's declaration of f among the same-identity
// declarations of its directory. With one declaration on each side the
// match is direct; with duplicates (init, build-tag variants) the match is
// by file (following renames) and ordinal within the file, else the one
// declaration with identical tokens.
func matchIdentity(f *Func, inParent, inCommit []*Func, renamedTo map[string]string) *Func {
	if len(inCommit) == 0 {
		return nil
	}
	if len(inCommit) == 1 && len(inParent) <= 1 {
		return inCommit[0]
	}
	p := f.Path
	if r, ok := renamedTo[p]; ok {
		p = r
	}
	for _, c := range inCommit {
		if c.Path == p && c.Ordinal == f.Ordinal {
			return c
		}
	}
	// No counterpart in the same file: the one declaration with the same
	// tokens, if there is exactly one.
	var same *Func
	for _, c := range inCommit {
		if slices.Equal(c.Header, f.Header) && slices.Equal(c.Body, f.Body) {
			if same != nil {
				return nil
			}
			same = c
		}
	}
	return same
}

// compare judges old against its counterpart nf in the commit.
func compare(old, nf *Func) OracleResult {
	r := OracleResult{Path: nf.Path, Start: nf.Start, End: nf.End}
	switch {
	case !slices.Equal(old.Header, nf.Header):
		r.Status = StatusSignatureChanged
	case !slices.Equal(old.Body, nf.Body):
		r.Status = StatusChanged
	case old.Path != nf.Path || old.Start != nf.Start || old.End != nf.End:
		r.Status = StatusMoved
	default:
		r.Status = StatusFresh
	}
	if !isStaleStatus(r.Status) && old.Raw != nf.Raw {
		r.FormatOnly = true
	}
	return r
}
