package memory

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/scip"
)

// searchDoc's "symbols" and "paths" fields and vectorText, memoized per
// symbol and path (one parse of a symbol serves both), hold what the
// names and words of every anchor give, the first time and from the
// memo.
func TestSearchDocAnchorFields(t *testing.T) {
	m := &Memory{ID: "m", Title: "t", Anchors: []Anchor{
		{Path: "tsdb/head_append.go", Symbol: "scip-go gomod github.com/p/p . `github.com/p/p/tsdb`/headAppender#Commit()."},
		{Path: "web/ui/src/pages/query/urlStateEncoding.ts"},
		{Path: "a.go", Symbol: "not a symbol"},
		{Path: "tsdb/head_append.go", Symbol: "scip-go gomod github.com/p/p . `github.com/p/p/tsdb`/headAppender#Commit()."},
	}}
	m.Type, m.Body, m.Tags = "gotcha", "body", []string{"x"}
	var syms, paths []string
	var vec strings.Builder
	vec.WriteString(m.Type + ": " + m.Title + "\n")
	for _, a := range m.Anchors {
		if p, err := scip.Parse(a.Symbol); a.Symbol != "" && err == nil {
			for _, d := range p.Descriptors {
				syms = append(syms, d.Name, ident.Split(d.Name))
			}
			if len(p.Descriptors) > 0 {
				name := p.Descriptors[len(p.Descriptors)-1].Name
				vec.WriteString(name + " (" + ident.Split(name) + ") ")
			}
		}
		paths = append(paths, a.Path, ident.Split(a.Path))
		vec.WriteString("in " + a.Path + "\n")
	}
	vec.WriteString("tags: x\nbody")
	for round := range 2 {
		f := searchDoc(m).Fields
		if f["symbols"] != strings.Join(syms, " ") || f["paths"] != strings.Join(paths, " ") {
			t.Fatalf("round %d: symbols %q, paths %q; want %q, %q", round, f["symbols"], f["paths"], strings.Join(syms, " "), strings.Join(paths, " "))
		}
		if got := vectorText(m); got != vec.String() {
			t.Fatalf("round %d: vectorText %q, want %q", round, got, vec.String())
		}
	}
}
