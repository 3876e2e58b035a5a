package lsp

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gloss-dev/gloss/memory"
	"go.lsp.dev/jsonrpc2"
)

// maxAllSymbols caps the memories an empty workspace/symbol query lists.
const maxAllSymbols = 200

// workspaceSymbol finds memories by full-text search over every folder,
// best first (memory.MergeHits); each is a symbol at its first anchor. An
// empty query (what clients send to list everything) lists every memory,
// most recently updated first, up to maxAllSymbols.
func (s *Server) workspaceSymbol(ctx context.Context, p workspaceSymbolParams) ([]SymbolInformation, error) {
	jsonrpc2.Async(ctx)
	query := p.Query
	out := []SymbolInformation{}
	var lists [][]memory.SearchHit
	roots := map[*memory.Memory]string{}
	for _, f := range s.allFolders() {
		var hits []memory.SearchHit
		var err error
		if strings.TrimSpace(query) == "" {
			hits, err = allHits(f.w)
		} else {
			hits, err = f.w.Search(ctx, query, 50)
		}
		if err != nil {
			continue
		}
		for _, h := range hits {
			roots[h.Memory] = f.root
		}
		lists = append(lists, hits)
	}
	for _, h := range memory.MergeHits(maxAllSymbols, lists...) {
		m := h.Memory
		si := SymbolInformation{Name: m.Title, Kind: symbolKindEvent, ContainerName: "gloss " + m.Type,
			Location: Location{URI: pathToURI(roots[m])}}
		if len(m.Anchors) > 0 {
			a := m.Anchors[0]
			si.Location = Location{URI: pathToURI(filepath.Join(roots[m], filepath.FromSlash(a.Path))), Range: Range{
				Start: Position{Line: a.Range.StartLine}, End: Position{Line: a.Range.LastLine() + 1}}}
		}
		out = append(out, si)
	}
	return out, nil
}

// symbolKindEvent is SymbolKind Event (LSP 3.17), the kind memories are
// listed with.
const symbolKindEvent = 15

// allHits returns every memory of w as search hits scored by recency
// (the latest update scores highest), for an empty query.
func allHits(w *memory.Workspace) ([]memory.SearchHit, error) {
	mems, err := w.List()
	if err != nil {
		return nil, err
	}
	hits := make([]memory.SearchHit, len(mems))
	for i, m := range mems {
		hits[i] = memory.SearchHit{Memory: m, Score: float64(m.UpdatedAt.Unix())}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits, nil
}
