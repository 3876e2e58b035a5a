package memory

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestViewBlocksSortedIsSortViewsByPlace checks that the integer-key sort
// of Summaries orders views exactly as SortViewsByPlace does (path, then
// line, anchorless last, ties in scan order), across several blocks.
func TestViewBlocksSortedIsSortViewsByPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"b/x.go", "a.go", "a/b.go", "a.go.bak", "é.go", "A.go"}
	var vb viewBlocks
	var want []View
	for i := 0; i < 3*viewBlock+17; i++ {
		v := View{ID: fmt.Sprintf("m%05d", i)}
		if rng.IntN(10) > 0 {
			v.Anchors = []AnchorView{{Path: paths[rng.IntN(len(paths))], StartLine: rng.IntN(40) - 2}}
		}
		vb.add(v)
		want = append(want, v)
	}
	SortViewsByPlace(want)
	got := vb.sorted()
	if len(got) != len(want) {
		t.Fatalf("%d views, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID {
			t.Fatalf("view %d is %s, want %s", i, got[i].ID, want[i].ID)
		}
	}
	if (&viewBlocks{}).sorted() != nil {
		t.Fatal("no views: want nil")
	}
}
