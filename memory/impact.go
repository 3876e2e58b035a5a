package memory

import (
	"fmt"
	"sort"

	"github.com/gloss-dev/gloss/index"
)

// Impacted is one definition a change to a symbol may affect.
type Impacted struct {
	// Symbol is the definition's SCIP symbol; Name its identifier.
	Symbol string `json:"symbol"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	// Path is workspace-relative; StartLine and EndLine are 1-based and
	// inclusive.
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Relation is "calls" (the definition calls the symbol, or calls a
	// definition that does) or "contains" (it encloses it).
	Relation string `json:"relation"`
	// Depth is the number of edges from the symbol (1 = direct).
	Depth int `json:"depth"`
}

// ImpactResult is what Impact found.
type ImpactResult struct {
	// Symbol is the SCIP symbol the query resolved to.
	Symbol string
	// Definitions are the impacted definitions, nearest first.
	Definitions []Impacted
	// Memories are anchored to Symbol (first) or to one of Definitions.
	Memories []*Memory
}

// Impact returns the definitions that call or contain the definition
// named by sym (a SCIP symbol or a unique name, as RememberRequest.Symbol),
// following the stored call and containment edges breadth-first up to
// depth edges, and the memories anchored to any of them. Call edges are
// syntactic (index.Store.Callers: any call of the same identifier), so a
// common method name may bring in callers of another definition of that
// name. It fails when sym names no definition or several.
func (w *Workspace) Impact(sym string, depth int) (ImpactResult, error) {
	defs, err := w.Store.DefsBySymbol(sym)
	if err != nil {
		return ImpactResult{}, err
	}
	if len(defs) == 0 {
		if defs, err = w.defsByName(sym); err != nil {
			return ImpactResult{}, err
		}
	}
	switch {
	case len(defs) == 0:
		return ImpactResult{}, fmt.Errorf("no definition %q in the index (run `gloss index` if the code is new)", sym)
	case len(defs) > 1 && defs[0].Symbol != defs[len(defs)-1].Symbol:
		return ImpactResult{}, ambiguousName(sym, defs)
	}
	root := defs[0]
	res := ImpactResult{Symbol: root.Symbol}
	seen := map[string]bool{root.Symbol: true}
	add := func(d index.Definition, rel string, dist int) bool {
		if seen[d.Symbol] {
			return false
		}
		seen[d.Symbol] = true
		res.Definitions = append(res.Definitions, Impacted{Symbol: d.Symbol, Name: d.Name, Kind: d.Kind, Path: d.Path,
			StartLine: d.Range.StartLine + 1, EndLine: d.Range.LastLine() + 1, Relation: rel, Depth: dist})
		return true
	}
	frontier := []index.Definition{root}
	for dist := 1; dist <= depth && len(frontier) > 0; dist++ {
		var next []index.Definition
		for _, d := range frontier {
			if d.Parent != "" {
				for _, p := range w.defs(d.Parent) {
					if add(p, "contains", dist) {
						next = append(next, p)
					}
				}
			}
			callers, err := w.Store.Callers(d.Name)
			if err != nil {
				return res, err
			}
			for _, c := range callers {
				for _, cd := range w.defs(c) {
					if add(cd, "calls", dist) {
						next = append(next, cd)
					}
				}
			}
		}
		frontier = next
	}
	rank := map[string]int{root.Symbol: 0}
	for i, d := range res.Definitions {
		rank[d.Symbol] = i + 1
	}
	symbols := map[string]bool{}
	for s := range rank {
		if s != "" {
			symbols[s] = true
		}
	}
	all, err := w.forSymbols(symbols)
	if err != nil {
		return res, err
	}
	best := map[*Memory]int{}
	for _, m := range all {
		for _, a := range m.Anchors {
			if r, ok := rank[a.Symbol]; ok && a.Symbol != "" {
				if b, seen := best[m]; !seen || r < b {
					best[m] = r
				}
			}
		}
	}
	for _, m := range all {
		if _, ok := best[m]; ok {
			res.Memories = append(res.Memories, m)
		}
	}
	sort.SliceStable(res.Memories, func(i, j int) bool { return best[res.Memories[i]] < best[res.Memories[j]] })
	return res, nil
}

// defs returns the stored definitions of a SCIP symbol (nil on error).
func (w *Workspace) defs(symbol string) []index.Definition {
	ds, _ := w.Store.DefsBySymbol(symbol)
	return ds
}
