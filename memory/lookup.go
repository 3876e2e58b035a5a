package memory

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// WorkspaceFor returns the workspace of ws whose root contains the
// absolute path p (the first match, so pass the longest roots first), also
// when p reaches it through symlinks; nil when none does.
func WorkspaceFor(ws []*Workspace, p string) *Workspace {
	try := func(p string) *Workspace {
		for _, w := range ws {
			if Contains(w.Root, p) {
				return w
			}
		}
		return nil
	}
	if w := try(p); w != nil {
		return w
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		return try(real)
	} else if err != nil {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return try(filepath.Join(dir, filepath.Base(p)))
		}
	}
	return nil
}

// Contains reports whether the absolute path p is root or inside it
// (lexically; resolve symlinks first).
func Contains(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// ForSymbol returns the memories with an anchor on the SCIP symbol, in id
// (creation) order (forSymbols). Errors are the store's, or a corrupt
// summary or record naming its memory.
func (w *Workspace) ForSymbol(symbol string) ([]*Memory, error) {
	return w.forSymbols(map[string]bool{symbol: true})
}

// forSymbols returns the memories with an anchor on any of the SCIP
// symbols, in id (creation) order, read from their records
// (Workspace.get). The candidate ids come from the place table when it
// answers for the store's generation (a daemon's, WarmPlaces), else from
// one scan of the summaries when every memory has a current one
// (summariesRankable), so only the candidates' records are decoded;
// otherwise every record is decoded (forSymbolsScan). A candidate whose
// record no longer anchors to a symbol, or was forgotten meanwhile, is
// left out.
func (w *Workspace) forSymbols(symbols map[string]bool) ([]*Memory, error) {
	ids, ok, err := w.symbolCandidates(symbols)
	if err != nil {
		return nil, err
	}
	if !ok {
		return w.forSymbolsScan(symbols)
	}
	return w.getKept(ids, func(m *Memory) bool { return anchoredToAny(m, symbols) })
}

// symbolCandidates returns the ids, sorted, of the memories with an
// anchor on one of symbols by the place table or the summaries (see
// forSymbols), and false when neither can answer. Summaries are scanned
// only in the binary format (summaryFormat), whose strings are stored as
// raw bytes: a summary containing none of the symbols' bytes is skipped
// undecoded.
func (w *Workspace) symbolCandidates(symbols map[string]bool) ([]string, bool, error) {
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return nil, false, err
	}
	if ids, ok := w.places.withSymbols(symbols, gen); ok {
		sort.Strings(ids)
		return ids, true, nil
	}
	if !w.summariesRankable() {
		return nil, false, nil
	}
	needles := make([][]byte, 0, len(symbols))
	for s := range symbols {
		needles = append(needles, []byte(s))
	}
	var ids []string
	err = w.Store.Summaries(func(id string, data []byte) error {
		if !containsAny(data, needles) {
			return nil
		}
		v, err := decodeSummary(data)
		if err != nil {
			return fmt.Errorf("corrupt summary of memory %s: %w", id, err)
		}
		for _, a := range v.Anchors {
			if symbols[a.Symbol] {
				ids = append(ids, id)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	sort.Strings(ids)
	return ids, true, nil
}

// containsAny reports whether data contains one of needles.
func containsAny(data []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(data, n) {
			return true
		}
	}
	return false
}

// forSymbolsScan is forSymbols by decoding every record (Workspace.List):
// what it falls back to when neither the place table nor the summaries
// answer.
func (w *Workspace) forSymbolsScan(symbols map[string]bool) ([]*Memory, error) {
	all, err := w.List()
	if err != nil {
		return nil, err
	}
	var out []*Memory
	for _, m := range all {
		if anchoredToAny(m, symbols) {
			out = append(out, m)
		}
	}
	return out, nil
}

// anchoredToAny reports whether m has an anchor on one of the SCIP
// symbols.
func anchoredToAny(m *Memory, symbols map[string]bool) bool {
	for _, a := range m.Anchors {
		if symbols[a.Symbol] {
			return true
		}
	}
	return false
}
