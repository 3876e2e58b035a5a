package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/gloss-dev/gloss/memory"
	"go.lsp.dev/jsonrpc2"
)

// workspaceSymbol finds memories by full-text search over every folder,
// best first (memory.MergeHits); each is a symbol at its first anchor.
func (s *Server) workspaceSymbol(ctx context.Context, p workspaceSymbolParams) ([]SymbolInformation, error) {
	jsonrpc2.Async(ctx)
	query := p.Query
	out := []SymbolInformation{}
	if strings.TrimSpace(query) == "" {
		return out, nil
	}
	var lists [][]memory.SearchHit
	roots := map[*memory.Memory]string{}
	for _, f := range s.allFolders() {
		hits, err := f.w.Search(ctx, query, 50)
		if err != nil {
			continue
		}
		for _, h := range hits {
			roots[h.Memory] = f.root
		}
		lists = append(lists, hits)
	}
	for _, h := range memory.MergeHits(-1, lists...) {
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
