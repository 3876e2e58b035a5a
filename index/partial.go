package index

import (
	"bytes"
	"sync"

	ts "github.com/odvcencio/gotreesitter"
)

// ParseRegions parses only the top-level declarations of a Go file that
// overlap the byte ranges spans ([start, end) pairs, an empty one marking
// an insertion or deletion point): the declarations are found by a lexical
// scan (goChunks: lines that start at column 0 outside brackets, strings
// and comments, with their doc comments) and each of them is parsed on its
// own behind a synthetic package clause, as Reparse parses a region; memo
// (nil for none) keeps those parses for other versions of the file that
// hold the same declaration. The result is a partial File without syntax trees: Defs, tokens
// (Tokens) and top-level nodes of those declarations only, at their places
// in src; it cannot be re-parsed (ReparseLean parses it whole). ok is
// false, and the caller parses the file whole, when lang is not Go, the
// package clause is not found or lies in a region, or a region does not
// parse cleanly on its own (so a wrong split, say inside a raw string, is
// never used).
//
// Git history import uses it to compare two versions of a file at the
// first sight of its path: the definitions a commit changed all overlap
// its diff hunks, so the declarations around the hunks are enough.
func (ix *Indexer) ParseRegions(parsers map[*Language]*ts.Parser, lang *Language, path string, src []byte, spans [][2]int, memo *ChunkMemo) (f *File, ok bool, err error) {
	if lang == nil || lang.Name != "go" || len(src) >= 1<<31 {
		return nil, false, nil
	}
	starts, pkg, pkgOff := goChunks(src)
	if pkg == "" {
		return nil, false, nil
	}
	regions := chunkRegions(starts, len(src), spans)
	f = &File{Path: path, Lang: lang, Src: src, Lines: NewLines(src), goPkg: pkg, partial: true}
	prefix := "package " + pkg + "\n"
	for _, rg := range regions {
		if rg[0] <= pkgOff && pkgOff < rg[1] {
			return nil, false, nil
		}
		// Each chunk of the region is parsed on its own (top-level
		// declarations of Go parse independently), so that the parse of
		// a chunk another version of the file shares is reused (memo).
		for k, cs := range starts {
			if cs < rg[0] || cs >= rg[1] {
				continue
			}
			ce := rg[1]
			if k+1 < len(starts) && starts[k+1] < ce {
				ce = starts[k+1]
			}
			sub, ok, err := ix.parseChunk(parsers, lang, path, prefix, src[cs:ce], memo)
			if err != nil || !ok {
				return nil, false, err
			}
			f.lang = sub.lang
			shift := cs - len(prefix)
			r := region{rs: cs, re: cs, shift: shift}
			spliceDefs(f, &File{Lines: NewLines(nil)}, sub, r)
			for _, t := range sub.tops {
				if t.start >= len(prefix) {
					f.tops = append(f.tops, topNode{start: t.start + shift, end: t.end + shift, comment: t.comment})
				}
			}
			f.spans = append(f.spans, sub.spanRange(len(prefix), len(sub.Src), shift)...)
		}
	}
	f.srcHash = HashBytes(src)
	return f, true, nil
}

// parseChunk returns the parse of prefix+chunk as a File without trees,
// from memo when it has it; ok is false when it does not parse cleanly.
func (ix *Indexer) parseChunk(parsers map[*Language]*ts.Parser, lang *Language, path, prefix string, chunk []byte, memo *ChunkMemo) (*File, bool, error) {
	key := ""
	if memo != nil {
		key = path + "\x00" + prefix + HashBytes(chunk)
		if sub := memo.get(key); sub != nil {
			return sub, true, nil
		}
	}
	sub, err := ix.ParseSource(parsers, lang, path, append([]byte(prefix), chunk...))
	if err != nil {
		return nil, false, err
	}
	if sub.HasError || !covered(sub) {
		sub.Release()
		return nil, false, nil
	}
	sub.DropTree()
	if memo != nil {
		memo.put(key, sub)
	}
	return sub, true, nil
}

// ChunkMemo keeps the parses ParseRegions made of top-level chunks of Go
// files (without trees: source, definitions, token spans), by path,
// package and content, bounded by source bytes (oldest out first). Walking
// a file's history, the declarations one commit edits are, in their new
// version, those the next commit editing them finds in its old version, so
// each version of a declaration is parsed about once. Safe for concurrent
// use.
type ChunkMemo struct {
	mu    sync.Mutex
	m     map[string]*File
	order []string
	bytes int
	max   int
}

// NewChunkMemo returns a ChunkMemo holding up to maxBytes bytes of chunk
// source (its memory is about three times that).
func NewChunkMemo(maxBytes int) *ChunkMemo {
	return &ChunkMemo{m: map[string]*File{}, max: maxBytes}
}

func (c *ChunkMemo) get(key string) *File {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *ChunkMemo) put(key string, f *File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	c.m[key] = f
	c.order = append(c.order, key)
	c.bytes += len(f.Src)
	for c.bytes > c.max && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old].Src)
		delete(c.m, old)
	}
}

// Partial reports a File made by ParseRegions: it holds the declarations
// around some ranges only.
func (f *File) Partial() bool { return f.partial }

// chunkRegions returns the merged byte ranges of the chunks (starting at
// starts, the last ending at n) that overlap spans, each widened by one
// byte on both sides so that an edit at a chunk boundary takes both
// neighbours.
func chunkRegions(starts []int, n int, spans [][2]int) [][2]int {
	var out [][2]int
	for _, sp := range spans {
		lo, hi := max(sp[0]-1, 0), min(sp[1]+1, n)
		rs, re := 0, n
		for _, s := range starts {
			if s <= lo {
				rs = s
			}
			if s > hi {
				re = s
				break
			}
		}
		if k := len(out); k > 0 && rs <= out[k-1][1] {
			out[k-1][1] = max(out[k-1][1], re)
			continue
		}
		out = append(out, [2]int{rs, re})
	}
	return out
}

// goChunks scans Go source lexically and returns the offsets where
// top-level chunks start (a line at column 0, outside brackets, strings
// and comments, that is not a closing bracket; a comment block directly
// above a line belongs to it), the package name and the offset of the
// package clause ("" and -1 when not found). Spans must be sorted.
func goChunks(src []byte) (starts []int, pkg string, pkgOff int) {
	pkgOff = -1
	depth := 0
	prevComment := false // the previous line was a column-0 // comment chunk line
	for i := 0; i < len(src); {
		// i is a line start, outside any literal or block comment.
		c := src[i]
		isComment := bytes.HasPrefix(src[i:], []byte("//"))
		if depth == 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '}' && c != ')' && c != ']' {
			if !prevComment {
				starts = append(starts, i)
			}
			if pkgOff < 0 && bytes.HasPrefix(src[i:], []byte("package ")) {
				pkgOff = i
				pkg = string(bytes.TrimSpace(src[i+8 : i+lineLen(src[i:])]))
				if k := bytes.IndexAny([]byte(pkg), " \t/;"); k >= 0 {
					pkg = pkg[:k]
				}
			}
		}
		prevComment = depth == 0 && isComment
		var ok bool
		if i, depth, ok = scanLine(src, i, depth); !ok {
			return nil, "", -1 // unterminated literal or comment
		}
	}
	return starts, pkg, pkgOff
}

func lineLen(b []byte) int {
	if k := bytes.IndexByte(b, '\n'); k >= 0 {
		return k
	}
	return len(b)
}

// scanLine scans from i to the start of the next line that begins outside
// any literal or block comment (multi-line raw strings and block comments
// are crossed), tracking bracket depth; ok is false at an unterminated
// literal.
func scanLine(src []byte, i, depth int) (next, d int, ok bool) {
	for i < len(src) {
		switch c := src[i]; c {
		case '\n':
			return i + 1, depth, true
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				return i + lineLen(src[i:]) + 1, depth, true
			}
			if i+1 < len(src) && src[i+1] == '*' {
				k := bytes.Index(src[i+2:], []byte("*/"))
				if k < 0 {
					return 0, 0, false
				}
				i += k + 3
				continue
			}
		case '`':
			k := bytes.IndexByte(src[i+1:], '`')
			if k < 0 {
				return 0, 0, false
			}
			i += k + 2
			continue
		case '"', '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != c {
				return 0, 0, false
			}
			i = j + 1
			continue
		}
		i++
	}
	return i, depth, true
}
