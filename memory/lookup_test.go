package memory

import (
	"slices"
	"testing"
)

// TestForSymbolMatchesScan checks that ForSymbol and Impact find, from
// the place table and from the summaries, the same memories in the same
// order as a scan of every record (forSymbolsScan), with forgotten,
// flagged and superseded memories among them, and that summaries in an
// older format make ForSymbol fall back to the scan.
func TestForSymbolMatchesScan(t *testing.T) {
	w, _ := contextFixture(t)
	all, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	var symbols []string
	for _, m := range all {
		for _, a := range m.Anchors {
			if a.Symbol != "" && !slices.Contains(symbols, a.Symbol) {
				symbols = append(symbols, a.Symbol)
			}
		}
	}
	if len(symbols) < 10 {
		t.Fatalf("fixture anchors %d symbols, want many", len(symbols))
	}
	first, err := w.ForSymbol(symbols[0])
	if err != nil || len(first) < 2 {
		t.Fatalf("ForSymbol(%s) = %d memories, %v", symbols[0], len(first), err)
	}
	if _, err := w.Forget(first[0].ID); err != nil {
		t.Fatal(err)
	}
	symbols = append(symbols, "scip-go gomod example.com/store v0 `example.com/store`/missing().")
	compare := func(stage string, wantRankable bool) {
		t.Helper()
		if got := w.summariesRankable(); got != wantRankable {
			t.Fatalf("%s: summariesRankable = %v, want %v", stage, got, wantRankable)
		}
		for _, s := range symbols {
			got, err := w.ForSymbol(s)
			if err != nil {
				t.Fatalf("%s: ForSymbol(%s): %v", stage, s, err)
			}
			want, err := w.forSymbolsScan(map[string]bool{s: true})
			if err != nil {
				t.Fatal(err)
			}
			if g, wn := memIDs(got), memIDs(want); !slices.Equal(g, wn) {
				t.Fatalf("%s: ForSymbol(%s) = %v, scan finds %v", stage, s, g, wn)
			}
			for i := range got {
				if got[i].fromSummary || got[i].Body != want[i].Body || len(got[i].Anchors) != len(want[i].Anchors) {
					t.Fatalf("%s: ForSymbol(%s)[%d] differs from its record", stage, s, i)
				}
			}
		}
		im, err := w.Impact(symbols[1], 1)
		if err != nil {
			t.Fatalf("%s: Impact: %v", stage, err)
		}
		if len(im.Memories) == 0 {
			t.Fatalf("%s: Impact(%s) finds no memories", stage, symbols[1])
		}
	}
	compare("summaries", true)
	before, _ := w.Impact(symbols[1], 1)
	if err := w.WarmPlaces(); err != nil {
		t.Fatal(err)
	}
	compare("place table", true)
	if after, _ := w.Impact(symbols[1], 1); !slices.Equal(memIDs(before.Memories), memIDs(after.Memories)) {
		t.Fatalf("Impact from the place table = %v, from summaries %v", memIDs(after.Memories), memIDs(before.Memories))
	}
	setSummaryFormat(t, w, 1) // a new generation: the place table no longer answers
	compare("older summary format", false)
}

// memIDs returns the ids of ms in order.
func memIDs(ms []*Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}
