package index

import (
	"go/scanner"
	"go/token"
	"strings"
)

// GoChangedFuncs returns a lower bound, found without parsing, of the
// function and method definitions of the Go source newSrc whose normalized
// tokens differ from those of every function of oldSrc (nil for an added
// file): the number of top-level func declarations of newSrc (split into
// top-level chunks lexically, as ParseRegions does) whose text without
// comments and whitespace, read with go/scanner, is not the text of a
// func declaration of oldSrc. Two declarations with the same tree-sitter
// tokens (the content hash, Definition.ContentHash) have the same such
// text, so each one counted is a definition a comparison of the parses
// finds new or changed (importgit.Run skips commits changing too many
// definitions without parsing them). Declarations that extractGo would
// not record (named "_", an unusual receiver) are not counted, and a file
// the scan cannot split (an unterminated literal, a changed chunk of two
// declarations) counts 0. Only chunks not found byte for byte in oldSrc
// are scanned, and compared with oldSrc's declarations of the same name.
// Two limits of the bound: a declaration with a syntax error is counted,
// although tree-sitter's error recovery may not make it a definition, and
// an unchanged chunk holding two declarations on one line (which gofmt
// never writes) is not searched for the second one's text.
func GoChangedFuncs(oldSrc, newSrc []byte) int {
	oldChunks, ok := goChunkTexts(oldSrc)
	if !ok {
		return 0
	}
	newChunks, ok := goChunkTexts(newSrc)
	if !ok {
		return 0
	}
	// A chunk found byte for byte in old is not counted; the others are
	// compared, without comments and whitespace, with old's func
	// declarations of the same name (scanned once each, when needed).
	raw := make(map[string]bool, len(oldChunks))
	byName := map[string][]int{}
	for i, c := range oldChunks {
		raw[c] = true
		if name := goFuncName([]byte(c)); name != "" {
			byName[name] = append(byName[name], i)
		}
	}
	norm := map[int]string{}
	n := 0
	for _, c := range newChunks {
		if raw[c] {
			continue
		}
		f, isFunc, ok := scanGoFunc([]byte(c))
		if !ok {
			return 0
		}
		if !isFunc || !f.def {
			continue
		}
		same := false
		for _, i := range byName[goFuncName([]byte(c))] {
			t, seen := norm[i]
			if !seen {
				o, _, ok := scanGoFunc([]byte(oldChunks[i]))
				if !ok {
					return 0
				}
				t, norm[i] = o.text, o.text
			}
			if t == f.text {
				same = true
				break
			}
		}
		if !same {
			n++
		}
	}
	return n
}

// goFunc is one top-level func declaration: its text without comments and
// whitespace, and whether extractGo records it as a definition.
type goFunc struct {
	text string
	def  bool
}

// goChunkTexts splits src into its top-level chunks (goChunks); ok is
// false when the scan fails. A nil src has no chunks.
func goChunkTexts(src []byte) ([]string, bool) {
	if len(src) == 0 {
		return nil, true
	}
	starts, _, _ := goChunks(src)
	if starts == nil {
		return nil, false
	}
	out := make([]string, len(starts))
	for i, s := range starts {
		e := len(src)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		out[i] = string(src[s:e])
	}
	return out, true
}

// goFuncName returns the beginning of the func declaration a chunk starts
// with, up to its name (the receiver's tokens included for a method), as
// its tokens' texts without comments and whitespace: a prefix of the text
// scanGoFunc compares, so declarations with the same such text have the
// same name. "" for other chunks.
func goFuncName(chunk []byte) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(chunk)), chunk, nil, 0)
	var b strings.Builder
	depth := 0
	for k := 0; ; k++ {
		_, tok, lit := s.Scan()
		if tok == token.EOF || k == 0 && tok != token.FUNC {
			return ""
		}
		if lit == "" {
			lit = tok.String()
		}
		b.WriteString(lit)
		switch {
		case tok == token.LPAREN || tok == token.LBRACK:
			depth++
		case tok == token.RPAREN || tok == token.RBRACK:
			depth--
		case tok == token.IDENT && depth == 0:
			return b.String()
		case k > 0 && depth == 0:
			return "" // not a func declaration's name
		}
	}
}

// scanGoFunc reads one chunk with go/scanner (comments skipped). isFunc
// reports a chunk that starts with the func keyword; ok is false when it
// holds more than one declaration or does not scan.
func scanGoFunc(chunk []byte) (f goFunc, isFunc, ok bool) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	bad := false
	s.Init(fset.AddFile("", -1, len(chunk)), chunk, func(token.Position, string) { bad = true }, 0)
	var b strings.Builder
	var toks []token.Token
	var lits []string
	depth, closed := 0, false
	var braces []bool // open braces: true for the body's (not a struct or interface type's)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line end: not in the source
		}
		if len(toks) == 0 && tok != token.FUNC {
			return f, false, true // not a func declaration: not read further
		}
		if closed && tok != token.SEMICOLON {
			return f, true, false // more after the declaration's body
		}
		switch tok {
		case token.LBRACE:
			prev := token.ILLEGAL
			if len(toks) > 0 {
				prev = toks[len(toks)-1]
			}
			braces = append(braces, depth == 0 && prev != token.STRUCT && prev != token.INTERFACE)
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE:
			depth--
			if len(braces) == 0 {
				return f, true, false
			}
			closed = braces[len(braces)-1]
			braces = braces[:len(braces)-1]
		case token.RPAREN, token.RBRACK:
			depth--
		}
		text := lit
		if text == "" {
			text = tok.String()
		}
		b.WriteString(strings.Join(strings.Fields(text), ""))
		toks, lits = append(toks, tok), append(lits, lit)
	}
	if len(toks) == 0 {
		return f, false, true
	}
	if bad || depth != 0 {
		return f, true, false
	}
	return goFunc{text: b.String(), def: goFuncIsDef(toks, lits)}, true, true
}

// goFuncIsDef reports whether a func declaration's tokens (func keyword
// first) have a name other than "_" and, for a method, a receiver of the
// usual shapes ((r T), (r *T), (T), (*T), with type parameters), which
// extractGo records as a definition.
func goFuncIsDef(toks []token.Token, lits []string) bool {
	i := 1
	if i < len(toks) && toks[i] == token.LPAREN {
		i++
		if i+1 < len(toks) && toks[i] == token.IDENT && (toks[i+1] == token.IDENT || toks[i+1] == token.MUL) {
			i++ // the receiver's name
		}
		if i < len(toks) && toks[i] == token.MUL {
			i++
		}
		if i >= len(toks) || toks[i] != token.IDENT {
			return false
		}
		i++
		if i < len(toks) && toks[i] == token.LBRACK { // type parameters
			for i < len(toks) && toks[i] != token.RBRACK {
				i++
			}
			i++
		}
		if i >= len(toks) || toks[i] != token.RPAREN {
			return false
		}
		i++
	}
	return i < len(toks) && toks[i] == token.IDENT && lits[i] != "_"
}
