package memory

import (
	"errors"
	"fmt"

	"github.com/gloss-dev/gloss/index"
)

// summariesRankable reports whether every memory has a current summary
// in summaryFormat (index.Store.SummariesCurrent, SummaryFormat), so that
// memories can be ranked from their summaries (summaryMemory) instead of
// their records. A store error answers false: callers read records.
func (w *Workspace) summariesRankable() bool {
	ok, err := w.Store.SummariesCurrent()
	if err != nil || !ok {
		return false
	}
	format, err := w.Store.SummaryFormat()
	return err == nil && format == summaryFormat
}

// summaryMemory returns memory id built from its stored summary
// (memoryOfView) with its lifecycle computed (Workspace.lifecycle): what
// ranking and packing read (type, title, body, anchors with their places
// and statuses, source, confidence inputs), a few hundred bytes instead of
// the record with its anchors' tokens and snapshots. The memory is marked
// as such (fromSummary); fullMemory reads its record. A missing summary
// is ErrNotFound, as Workspace.get's.
func (w *Workspace) summaryMemory(id string) (*Memory, error) {
	data, err := w.Store.Summary(id)
	if errors.Is(err, index.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	v, err := decodeSummary(data)
	if err != nil {
		return nil, fmt.Errorf("summary of memory %s: %w", id, err)
	}
	m := memoryOfView(v)
	w.lifecycle(m)
	return m, nil
}

// memoryOfView is the memory a summary describes: the fields View holds,
// anchors with ranges whose 1-based lines are the view's (StartLine,
// EndLine) and no hashes, tokens or snapshots; fromSummary set.
func memoryOfView(v View) *Memory {
	m := &Memory{ID: v.ID, Type: v.Type, Title: v.Title, Body: v.Body, Tags: v.Tags, Scope: v.Scope, Source: v.Source,
		Author: v.Author, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, VerifiedAt: v.VerifiedAt,
		HalfLifeDays: v.halfLifeDays, Relations: v.Relations, ReviewReason: v.ReviewReason, fromSummary: true}
	l := v.ViewLifecycle
	m.Pinned, m.NeedsReview, m.StaleSince, m.ExpiresAt = l.Pinned, l.NeedsReview, l.StaleSince, l.ExpiresAt
	m.AccessCount, m.LastAccessedAt = l.AccessCount, l.LastAccessedAt
	m.Anchors = make([]Anchor, len(v.Anchors))
	for i, a := range v.Anchors {
		r := viewRange(a.StartLine, a.EndLine)
		m.Anchors[i] = Anchor{Path: a.Path, Symbol: a.Symbol, Kind: a.Kind, Range: r, Status: a.Status,
			OriginPath: a.Path, OriginRange: r}
		if a.OriginPath != "" {
			m.Anchors[i].OriginPath, m.Anchors[i].OriginRange = a.OriginPath, viewRange(a.OriginStartLine, a.OriginEndLine)
		}
	}
	return m
}

// viewRange is a whole-line range over the 1-based inclusive lines
// first..last (a view's), whose StartLine and LastLine are first−1 and
// last−1.
func viewRange(first, last int) index.Range {
	return index.Range{StartLine: first - 1, EndLine: last - 1, EndCol: 1}
}

// fullMemory returns m itself when it was read from its record, else
// (fromSummary) its record read through the workspace (Workspace.get),
// annotated with the memories superseding it as m was; m when the record
// cannot be read (forgotten meanwhile).
func (w *Workspace) fullMemory(m *Memory) *Memory {
	if !m.fromSummary {
		return m
	}
	full, err := w.get(m.ID)
	if err != nil {
		return m
	}
	full.SupersededBy = m.SupersededBy
	return full
}

// forSymbolRanked is ForSymbol for ranking: with fromSummaries the
// memories are built from their summaries (summaryMemory), found by the
// place table when it answers for the store's generation (a daemon's,
// WarmPlaces), else by one scan of every summary; without, ForSymbol.
// Either way they are those with an anchor on symbol, in id order.
func (w *Workspace) forSymbolRanked(symbol string, fromSummaries bool) ([]*Memory, error) {
	if !fromSummaries {
		return w.ForSymbol(symbol)
	}
	ids, ok, err := w.symbolCandidates(map[string]bool{symbol: true})
	if err != nil {
		return nil, err
	}
	if !ok {
		return w.ForSymbol(symbol)
	}
	out := make([]*Memory, 0, len(ids))
	for _, id := range ids {
		m, err := w.summaryMemory(id)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// withSymbols returns the ids of the memories with an anchor on one of
// symbols, unordered, and whether the table answers for generation gen.
func (t *placeTable) withSymbols(symbols map[string]bool, gen uint64) (ids []string, answers bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.ok || t.gen != gen {
		return nil, false
	}
	seen := map[string]bool{}
	for sym := range symbols {
		for id := range t.bySymbol[sym] {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids, true
}
