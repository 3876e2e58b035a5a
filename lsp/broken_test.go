package lsp

import (
	"strings"
	"testing"
	"time"
)

// typeBroken types text one character at a time at 0-based line l,
// column 1 of rel (after the tab), and returns the document version of the
// last change.
func (c *client) typeBroken(rel string, l int, text string) int {
	for i, ch := range text {
		p := Position{Line: l, Character: 1 + i}
		c.change(rel, Range{Start: p, End: p}, string(ch))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened[rel]
}

// TestBrokenEditsKeepDiagnostics: while the user types a statement that
// leaves the file unparsable, the memory of another function whose body
// the buffer changed stays flagged, the memory of the edited function
// follows the buffer, and the last version of every burst is published.
func TestBrokenEditsKeepDiagnostics(t *testing.T) {
	src, spans := genFile("p", 30)
	root := repo(t, map[string]string{"p/f.go": src})
	c := start(t, root, clientOpts{})
	name := "p/f.go"
	c.remember(name, spans[3][0]+1, spans[3][1], "F3", "F3 multiplies.")
	c.open(name, src)
	uri := c.uri(name)
	c.waitDiags(uri, func(d []Diagnostic) bool { return len(d) == 0 })
	// F3's body changes in the buffer: its memory is stale.
	l3 := spans[3][0] + 1 // 0-based first body line of F3
	c.change(name, Range{Start: Position{Line: l3, Character: 7}, End: Position{Line: l3, Character: 8}}, "9")
	c.waitDiags(uri, func(d []Diagnostic) bool { return len(d) == 1 })
	// Now F20 is being typed into: the file does not parse.
	v := c.typeBroken(name, spans[20][0]+1, "if (x > 2 {")
	c.waitFor("publish of the last version", func() bool { return c.dver[uri] == v })
	c.mu.Lock()
	d := c.diags[uri]
	c.mu.Unlock()
	if len(d) != 1 || d[0].Range.Start.Line != l3-1 {
		t.Fatalf("while the file does not parse, diagnostics = %+v; want F3's only", d)
	}
	// F3 restored while F20 is still broken: the warning goes.
	c.change(name, Range{Start: Position{Line: l3, Character: 7}, End: Position{Line: l3, Character: 8}}, "2")
	c.waitDiags(uri, func(d []Diagnostic) bool { return len(d) == 0 })
}

// BenchmarkDidChangeUnparsable: BenchmarkDidChangeDiagnostics' file
// (2,016 lines, 212 memories) with an unfinished statement in one
// function, so that no version parses; each op types one more character
// there and waits for the publishDiagnostics of that version.
func BenchmarkDidChangeUnparsable(b *testing.B) {
	root, src, spans := benchRepo(b, 1, 106, 2)
	name := "p0/f0.go"
	c := start(b, root, clientOpts{})
	c.open(name, src[name])
	uri := c.uri(name)
	c.waitDiags(uri, func([]Diagnostic) bool { return true })
	l := spans[name][50][0] + 1
	c.typeBroken(name, l, "if (x > 2 {")
	col := 1 + len("if (x > 2 {")
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		p := Position{Line: l, Character: col + i}
		c.change(name, Range{Start: p, End: p}, "y")
		c.mu.Lock()
		v := c.opened[name]
		c.mu.Unlock()
		c.waitFor("diagnostics", func() bool { return c.dver[uri] == v })
		lat = append(lat, time.Since(t0))
		if testing.Verbose() {
			b.Logf("op %d: %s", i, time.Since(t0))
		}
	}
	report(b, lat)
	if strings.Count(src[name], "\n") < 2000 {
		b.Fatal("file too small")
	}
}
