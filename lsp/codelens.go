package lsp

import (
	"context"
	"fmt"
	"sort"

	"github.com/gloss-dev/gloss/memory"
	"go.lsp.dev/jsonrpc2"
)

// lensCount formats "2 memories · 1 stale".
func lensCount(n, stale int) string {
	s := fmt.Sprintf("%d memories", n)
	if n == 1 {
		s = "1 memory"
	}
	if stale > 0 {
		s += fmt.Sprintf(" · %d stale", stale)
	}
	return s
}

// codeLens shows one lens per definition (or span outside definitions)
// with memories: "2 memories · 1 stale", opening gloss.showMemories.
func (s *Server) codeLens(ctx context.Context, p codeLensParams) ([]CodeLens, error) {
	sn := s.snapshot(p.TextDocument.URI)
	jsonrpc2.Async(ctx)
	out := []CodeLens{}
	r := s.resolve(sn)
	if r.err != nil {
		return out, nil
	}
	enc := s.encoding()
	type group struct {
		line, last int
		n, stale   int
	}
	groups := map[string]*group{} // by symbol, or "line:N" for spans outside definitions
	var order []string
	add := func(key string, line, last int, stale bool) {
		g := groups[key]
		if g == nil {
			g = &group{line: line, last: last}
			groups[key] = g
			order = append(order, key)
		}
		g.n++
		if stale {
			g.stale++
		}
	}
	defLines := map[string][2]int{}
	for _, d := range r.defs {
		if _, ok := defLines[d.Symbol]; !ok {
			defLines[d.Symbol] = [2]int{d.Range.StartLine, d.Range.LastLine()}
		}
	}
	for _, m := range sn.f.w.Visible(r.mems) { // superseded memories are not counted
		seen := map[string]bool{}
		for _, a := range m.Anchors {
			if a.Path != sn.rel {
				continue
			}
			key := fmt.Sprintf("line:%d", a.Range.StartLine)
			line, last := a.Range.StartLine, a.Range.LastLine()
			if dl, ok := defLines[a.Symbol]; ok && a.Symbol != "" {
				key, line, last = a.Symbol, dl[0], dl[1]
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			add(key, line, last, memory.IsStale(a.Status))
		}
	}
	for _, k := range order {
		g := groups[k]
		rng := sn.t.lineRange(g.line, g.last, enc)
		out = append(out, CodeLens{Range: Range{Start: rng.Start, End: rng.Start}, Command: &Command{
			Title:     lensCount(g.n, g.stale),
			Command:   "gloss.showMemories",
			Arguments: []any{map[string]any{"uri": sn.uri, "range": rng}},
		}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out, nil
}
