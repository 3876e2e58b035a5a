package memory

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/index"
)

// TestFuserOrder checks weighted RRF, the confidence and freshness
// multipliers and deterministic ties on hand-made ranker lists.
func TestFuserOrder(t *testing.T) {
	mem := func(id string, conf float64, stale bool) *Memory {
		m := &Memory{ID: id, Confidence: conf, Anchors: []Anchor{{Status: StatusFresh}}}
		if stale {
			m.Anchors[0].Status = StatusChanged
		}
		return m
	}
	sym := func(name string) *index.Definition {
		return &index.Definition{Symbol: "s " + name + "().", Name: name, Path: "x.go"}
	}
	type entry struct {
		r      Result
		ranker string
		rank   int
	}
	m := func(mm *Memory, ranker string, rank int) entry {
		return entry{Result{Kind: ResultMemory, Memory: mm}, ranker, rank}
	}
	s := func(d *index.Definition, rank int) entry {
		return entry{Result{Kind: ResultSymbol, Symbol: d}, RankerCode, rank}
	}
	a, b, c := mem("A", 1, false), mem("B", 1, false), mem("C", 1, true)
	low := mem("L", 0.2, false)
	for _, tc := range []struct {
		name    string
		entries []entry
		want    string
	}{
		{"agreement beats one first place", []entry{m(a, RankerText, 1), m(b, RankerText, 2), m(b, RankerVector, 1), m(a, RankerVector, 5)}, "B A"},
		{"text outweighs graph at equal rank", []entry{m(a, RankerGraph, 1), m(b, RankerText, 1)}, "B A"},
		{"memory before symbol at equal rank", []entry{s(sym("Zed"), 1), m(a, RankerText, 1)}, "A s:Zed"},
		{"stale halved, not hidden", []entry{m(c, RankerText, 1), m(a, RankerText, 2)}, "A C"},
		{"low confidence lowered", []entry{m(low, RankerText, 1), m(a, RankerText, 3)}, "A L"},
		{"ties by key", []entry{m(b, RankerVector, 1), m(a, RankerText, 1)}, "A B"},
		{"symbols tie by key", []entry{s(sym("b"), 1), s(sym("a"), 1)}, "s:a s:b"},
	} {
		f := &fuser{byKey: map[string]*Result{}}
		for _, e := range tc.entries {
			f.add(e.r, RankerPart{Ranker: e.ranker, Rank: e.rank})
		}
		var got []string
		for _, r := range f.results() {
			if r.Kind == ResultMemory {
				got = append(got, r.Memory.ID)
			} else {
				got = append(got, "s:"+r.Symbol.Name)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: order %v, want %s", tc.name, got, tc.want)
		}
	}
}
