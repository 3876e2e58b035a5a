package memory

import (
	"fmt"
	"sync"
)

// placeTable holds the anchor places (path and SCIP symbol of each
// anchor) of every memory, by id, at one memory generation: what the
// graph ranker scores memories by (scoreGraphMemories). A daemon warms it
// once (WarmPlaces), after which the ranker reads no summary per
// candidate (at 100,000 memories, 256 Pebble reads per query, ~5 ms of
// CPU on prometheus, issue #15); every memory write applies its changes
// (update), and a table that missed one is not used again until warmed
// anew. A CLI process never warms it: one scan of every summary costs
// more than its single query.
type placeTable struct {
	mu     sync.RWMutex
	ok     bool // warmed and in step with the writes since, at gen
	gen    uint64
	places map[string][]place
	// bySymbol holds, for each SCIP symbol anchored, the ids of its
	// memories: withSymbols reads it instead of walking every place
	// (O(memories) per lookup).
	bySymbol map[string]map[string]struct{}
}

// index adds (add true) or removes id's places ps to or from bySymbol.
func (t *placeTable) index(id string, ps []place, add bool) {
	for _, p := range ps {
		if p.symbol == "" {
			continue
		}
		ids := t.bySymbol[p.symbol]
		if add {
			if ids == nil {
				ids = map[string]struct{}{}
				t.bySymbol[p.symbol] = ids
			}
			ids[id] = struct{}{}
			continue
		}
		delete(ids, id)
		if len(ids) == 0 {
			delete(t.bySymbol, p.symbol)
		}
	}
}

// place is where an anchor is: its workspace-relative path and SCIP
// symbol ("" for a span anchor).
type place struct{ path, symbol string }

// lookup returns the places of memory id, and whether the table answers
// for the store's generation gen (found is false for an id it does not
// hold: a memory gone).
func (t *placeTable) lookup(id string, gen uint64) (places []place, found, answers bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.ok || t.gen != gen {
		return nil, false, false
	}
	places, found = t.places[id]
	return places, found, true
}

// update applies a memory write that brought the store to generation
// gen: changed memories' places replace theirs, deleted ids go. A table
// not exactly one write behind is dropped (not warmed).
func (t *placeTable) update(changed []*Memory, deleted []string, gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ok {
		return
	}
	if t.gen == 0 || t.gen+1 != gen { // generations count up by one from a nonzero start (index.Store.MemoryGeneration)
		t.ok, t.places, t.bySymbol = false, nil, nil
		return
	}
	for _, m := range changed {
		t.index(m.ID, t.places[m.ID], false)
		ps := placesOf(m)
		t.places[m.ID] = ps
		t.index(m.ID, ps, true)
	}
	for _, id := range deleted {
		t.index(id, t.places[id], false)
		delete(t.places, id)
	}
	t.gen = gen
}

// placesOf returns the anchor places of m.
func placesOf(m *Memory) []place {
	out := make([]place, len(m.Anchors))
	for i, a := range m.Anchors {
		out[i] = place{a.Path, a.Symbol}
	}
	return out
}

// WarmPlaces reads the anchor places of every memory from the stored
// summaries into the workspace's place table, for the graph ranker; the
// daemon calls it once after its warm-up check. It holds the write lock
// for the scan (about a second at 100,000 memories), so that no write
// falls between the generation it records and the summaries it reads.
// At 100,000 memories with one anchor each the table takes an estimated
// 15 MB (ids, map entries and place slices; one copy of each path and
// symbol), not measured.
// Summaries are brought up to date first (ensureSummaries, as a check
// does); a store error or a corrupt summary fails it.
func (w *Workspace) WarmPlaces() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.ensureSummaries(); err != nil {
		return err
	}
	gen, err := w.Store.MemoryGeneration()
	if err != nil {
		return err
	}
	places := map[string][]place{}
	interned := map[string]string{} // one copy of each path and symbol
	intern := func(s string) string {
		if c, ok := interned[s]; ok {
			return c
		}
		interned[s] = s
		return s
	}
	err = w.Store.Summaries(func(id string, data []byte) error {
		v, err := decodeSummary(data)
		if err != nil {
			return fmt.Errorf("corrupt summary of memory %s: %w", id, err)
		}
		ps := make([]place, len(v.Anchors))
		for i, a := range v.Anchors {
			ps[i] = place{intern(a.Path), intern(a.Symbol)}
		}
		places[id] = ps
		return nil
	})
	if err != nil {
		return err
	}
	t := &w.places
	t.mu.Lock()
	t.ok, t.gen, t.places, t.bySymbol = true, gen, places, map[string]map[string]struct{}{}
	for id, ps := range places {
		t.index(id, ps, true)
	}
	t.mu.Unlock()
	return nil
}
