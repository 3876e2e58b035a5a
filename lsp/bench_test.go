package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/memory"
)

// genFile returns a Go file with n functions of 18 lines each (plus a
// header) and the 1-based first and last line of each function.
func genFile(pkg string, n int) (string, [][2]int) {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	line := 3
	var spans [][2]int
	for i := 0; i < n; i++ {
		start := line
		fmt.Fprintf(&b, "// F%d does step %d of the pipeline.\nfunc F%d(x int) int {\n", i, i, i)
		for j := 0; j < 14; j++ {
			fmt.Fprintf(&b, "\tx = x*%d + %d // é𝄞\n", j+2, i)
		}
		b.WriteString("\treturn x\n}\n\n")
		line += 19
		spans = append(spans, [2]int{start, line - 2})
	}
	return b.String(), spans
}

// benchRepo makes a repository with files×funcs functions and perFunc
// memories on each function, remembered through the engine.
func benchRepo(b *testing.B, files, funcs, perFunc int) (string, map[string]string, map[string][][2]int) {
	src := map[string]string{}
	spans := map[string][][2]int{}
	for i := 0; i < files; i++ {
		name := fmt.Sprintf("p%d/f%d.go", i%10, i)
		src[name], spans[name] = genFile(fmt.Sprintf("p%d", i%10), funcs)
	}
	root := repo(b, src)
	w, err := memory.Open(root, memory.Options{Author: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Index(context.Background()); err != nil {
		b.Fatal(err)
	}
	var reqs []memory.RememberRequest
	for name, ss := range spans {
		for _, s := range ss {
			for k := 0; k < perFunc; k++ {
				first := s[0] + 1 // func line: a symbol anchor
				if k%2 == 1 {
					first = s[0] + 2 + k%14 // a span line inside the body
				}
				last := s[1]
				if k%2 == 1 {
					last = first
				}
				reqs = append(reqs, memory.RememberRequest{Text: fmt.Sprintf("Memory %d about %s line %d", k, name, first), Path: root + "/" + name, StartLine: first, EndLine: last})
			}
		}
	}
	for len(reqs) > 0 {
		n := min(len(reqs), 2000)
		_, errs := w.RememberBatch(context.Background(), reqs[:n])
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		reqs = reqs[n:]
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return root, src, spans
}

func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p)
	return float64(s[i].Microseconds()) / 1000
}

func report(b *testing.B, lat []time.Duration) {
	b.ReportMetric(percentile(lat, 0.50), "p50-ms")
	b.ReportMetric(percentile(lat, 0.95), "p95-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkHover: 10,000 memories (100 files × 20 functions × 5), hover
// inside an open file with 100 of them. "cached" hovers the same document
// version (the resolution of the last change is reused); "uncached"
// re-resolves the document on every hover.
func BenchmarkHover(b *testing.B) {
	root, src, spans := benchRepo(b, 100, 20, 5)
	c := start(b, root, clientOpts{})
	name := "p3/f13.go"
	c.open(name, src[name])
	c.waitDiags(c.uri(name), func([]Diagnostic) bool { return true })
	for _, mode := range []string{"cached", "uncached"} {
		b.Run(mode, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				if mode == "uncached" {
					for _, f := range c.srv.allFolders() {
						f.w.DropResolutions()
					}
				}
				s := spans[name][i%len(spans[name])]
				t0 := time.Now()
				h := c.hover(name, Position{Line: s[0] + 3, Character: 2})
				lat = append(lat, time.Since(t0))
				if h == nil {
					b.Fatal("no hover")
				}
			}
			report(b, lat)
		})
	}
}

// BenchmarkDidChangeDiagnostics: a 2,016-line file (106 functions) with
// 212 memories; each op is one incremental didChange (a token inside a
// remembered function, alternately changed and restored) until the
// publishDiagnostics of that version arrives.
func BenchmarkDidChangeDiagnostics(b *testing.B) {
	root, src, spans := benchRepo(b, 1, 106, 2)
	name := "p0/f0.go"
	if n := strings.Count(src[name], "\n"); n < 2000 {
		b.Fatalf("%d lines", n)
	}
	c := start(b, root, clientOpts{})
	c.open(name, src[name])
	uri := c.uri(name)
	c.waitDiags(uri, func([]Diagnostic) bool { return true })
	s := spans[name][50]
	l := s[0] + 1 // 0-based first body line: "\tx = x*2 + 50 // é𝄞"
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		repl := "3" // change "x*2" to "x*3", then back
		if i%2 == 1 {
			repl = "2"
		}
		t0 := time.Now()
		c.change(name, Range{Start: Position{Line: l, Character: 7}, End: Position{Line: l, Character: 8}}, repl)
		c.mu.Lock()
		v := c.opened[name]
		c.mu.Unlock()
		c.waitFor("diagnostics", func() bool { return c.dver[uri] == v })
		lat = append(lat, time.Since(t0))
		c.mu.Lock()
		n := len(c.diags[uri])
		c.mu.Unlock()
		if want := (i + 1) % 2; n != want {
			b.Fatalf("op %d: %d diagnostics, want %d", i, n, want)
		}
	}
	report(b, lat)
}
