package lsp

import (
	"context"
	"path/filepath"
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

// allHits returns the maxAllSymbols most recently updated memories of w
// (memory.Workspace.RecentMemories) as search hits scored by recency (the
// latest update scores highest), for an empty query: listing all
// 100,000 memories of a store to keep 200 took 4.5 CPU-s and 450 MB.
func allHits(w *memory.Workspace) ([]memory.SearchHit, error) {
	mems, err := w.RecentMemories(maxAllSymbols)
	if err != nil {
		return nil, err
	}
	hits := make([]memory.SearchHit, len(mems))
	for i, m := range mems {
		hits[i] = memory.SearchHit{Memory: m, Score: float64(m.UpdatedAt.Unix())}
	}
	return hits, nil
}
