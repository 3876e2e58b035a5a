package lsp

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/scanner"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of lsp/testdata/*.txtar")

// A marker is a call in a comment of a fixture file, gopls style:
//
//	//@remember("Title", "Body"[, lines])  remember from this line to the line
//	                                      before the next blank line (or lines lines)
//	//@hover(name)       hover at this line's first non-blank character;
//	                     the golden Markdown is section name.hover ("null" for none)
//	//@codelens("1 memory")  a code lens with this title on this line
//	//@edit("old", "new")   after the first checks, replace old on this line
//	                        (one incremental didChange, UTF-16 columns)
//	//@diag(code)        after the edits, a gloss diagnostic with this code here
//	//@hoverafter(name)  like hover, after the edits
//
// Comment markers are "//@" or "#@" (Python).
type marker struct {
	file string
	line int // 0-based
	name string
	args []string
}

func parseMarkers(t *testing.T, file, content string) []marker {
	var out []marker
	for i, l := range strings.Split(content, "\n") {
		j := strings.Index(l, "//@")
		k := 3
		if j < 0 {
			j, k = strings.Index(l, "#@"), 2
		}
		if j < 0 {
			continue
		}
		var s scanner.Scanner
		s.Init(strings.NewReader(l[j+k:]))
		s.Mode = scanner.ScanIdents | scanner.ScanStrings | scanner.ScanInts
		s.Error = func(_ *scanner.Scanner, msg string) { t.Fatalf("%s:%d: bad marker: %s", file, i+1, msg) }
		for tok := s.Scan(); tok != scanner.EOF; tok = s.Scan() {
			if tok == ',' {
				continue
			}
			if tok != scanner.Ident {
				t.Fatalf("%s:%d: bad marker at %q", file, i+1, s.TokenText())
			}
			m := marker{file: file, line: i, name: s.TokenText()}
			if s.Scan() != '(' {
				t.Fatalf("%s:%d: want ( after %s", file, i+1, m.name)
			}
			for tok = s.Scan(); tok != ')' && tok != scanner.EOF; tok = s.Scan() {
				switch tok {
				case ',':
				case scanner.String:
					v, err := strconv.Unquote(s.TokenText())
					if err != nil {
						t.Fatal(err)
					}
					m.args = append(m.args, v)
				default:
					m.args = append(m.args, s.TokenText())
				}
			}
			out = append(out, m)
		}
	}
	return out
}

func TestMarkers(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, fx := range files {
		t.Run(strings.TrimSuffix(filepath.Base(fx), ".txtar"), func(t *testing.T) { runFixture(t, fx) })
	}
}

func runFixture(t *testing.T, fx string) {
	ar, err := txtar.ParseFile(fx)
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	golden := map[string]string{}
	var markers []marker
	for _, f := range ar.Files {
		if ext := filepath.Ext(f.Name); ext == ".hover" {
			golden[strings.TrimSuffix(f.Name, ext)] = string(f.Data)
			continue
		}
		src[f.Name] = string(f.Data)
		markers = append(markers, parseMarkers(t, f.Name, string(f.Data))...)
	}
	root := repo(t, src)
	c := start(t, root, clientOpts{})
	got := map[string]string{}
	at := func(m marker) string { return fmt.Sprintf("%s:%d", m.file, m.line+1) }
	firstCol := func(m marker) int {
		l := strings.Split(src[m.file], "\n")[m.line]
		return len(l) - len(strings.TrimLeft(l, " \t"))
	}
	hover := func(m marker) {
		h := c.hover(m.file, Position{Line: m.line, Character: firstCol(m)})
		v := "null\n"
		if h != nil {
			v = h.Contents.Value + "\n"
		}
		got[m.args[0]] = v
		if !*update && golden[m.args[0]] != v {
			t.Errorf("%s: hover %s:\n%s\nwant:\n%s", at(m), m.args[0], v, golden[m.args[0]])
		}
	}
	// Phase 1: remember.
	for _, m := range markers {
		if m.name != "remember" {
			continue
		}
		lines := strings.Split(src[m.file], "\n")
		last := m.line
		if len(m.args) > 2 {
			n, _ := strconv.Atoi(m.args[2])
			last = m.line + n - 1
		} else {
			for last+1 < len(lines) && strings.TrimSpace(lines[last+1]) != "" {
				last++
			}
		}
		c.remember(m.file, m.line+1, last+1, m.args[0], m.args[1])
	}
	// Phase 2: open documents, hover and lenses.
	names := make([]string, 0, len(src))
	for f := range src {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		c.open(f, src[f])
		c.waitDiags(c.uri(f), func([]Diagnostic) bool { return true })
	}
	lenses := map[string][]CodeLens{}
	for _, m := range markers {
		switch m.name {
		case "hover":
			hover(m)
		case "codelens":
			if _, ok := lenses[m.file]; !ok {
				lenses[m.file] = c.lenses(m.file)
			}
			found := false
			for _, l := range lenses[m.file] {
				if l.Range.Start.Line == m.line && l.Command != nil && l.Command.Title == m.args[0] {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no code lens %q in %+v", at(m), m.args[0], lenses[m.file])
			}
		}
	}
	for f, ls := range lenses {
		n := 0
		for _, m := range markers {
			if m.file == f && m.name == "codelens" {
				n++
			}
		}
		if len(ls) != n {
			t.Errorf("%s: %d code lenses, %d markers: %+v", f, len(ls), n, ls)
		}
	}
	// Phase 3: edits, diagnostics, hovers after.
	edited := map[string]bool{}
	for _, m := range markers {
		if m.name != "edit" {
			continue
		}
		line := strings.Split(src[m.file], "\n")[m.line]
		col := strings.Index(line, m.args[0])
		if col < 0 {
			t.Fatalf("%s: %q not on the line", at(m), m.args[0])
		}
		s16 := utf16Len(line[:col])
		e16 := s16 + utf16Len(m.args[0])
		c.change(m.file, Range{Start: Position{Line: m.line, Character: s16}, End: Position{Line: m.line, Character: e16}}, m.args[1])
		edited[m.file] = true
	}
	for f := range edited {
		uri := c.uri(f)
		c.mu.Lock()
		v := c.opened[f]
		c.mu.Unlock()
		c.waitFor("diagnostics of version", func() bool { return c.dver[uri] == v })
	}
	for _, f := range names {
		c.mu.Lock()
		ds := c.diags[c.uri(f)]
		c.mu.Unlock()
		var want []string
		for _, m := range markers {
			if m.file == f && m.name == "diag" {
				want = append(want, fmt.Sprintf("%d:%s", m.line, m.args[0]))
			}
		}
		var have []string
		for _, d := range ds {
			have = append(have, fmt.Sprintf("%d:%s", d.Range.Start.Line, d.Code))
		}
		sort.Strings(want)
		sort.Strings(have)
		if strings.Join(want, " ") != strings.Join(have, " ") {
			t.Errorf("%s: diagnostics %v, want %v (%+v)", f, have, want, ds)
		}
	}
	for _, m := range markers {
		if m.name == "hoverafter" {
			hover(m)
		}
	}
	if *update {
		var keep []txtar.File
		for _, f := range ar.Files {
			if filepath.Ext(f.Name) != ".hover" {
				keep = append(keep, f)
			}
		}
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			keep = append(keep, txtar.File{Name: k + ".hover", Data: []byte(got[k])})
		}
		ar.Files = keep
		if err := os.WriteFile(fx, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
