package memory

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPlaceOrderIsSortViewsByPlace checks that the integer-key order of
// Summaries (placeOrder) orders views exactly as SortViewsByPlace does
// (path, then line, anchorless last, ties in scan order).
func TestPlaceOrderIsSortViewsByPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"b/x.go", "a.go", "a/b.go", "a.go.bak", "é.go", "A.go"}
	var places []summaryPlace
	var views, want []View
	for i := 0; i < 3*viewBlock+17; i++ {
		v := View{ID: fmt.Sprintf("m%05d", i)}
		if rng.IntN(10) > 0 {
			v.Anchors = []AnchorView{{Path: paths[rng.IntN(len(paths))], StartLine: rng.IntN(40) - 2}}
		}
		pl, err := summaryPlaceOf(mustEncodeSummary(t, v))
		if err != nil {
			t.Fatal(err)
		}
		places = append(places, pl)
		views = append(views, v)
		want = append(want, v)
	}
	SortViewsByPlace(want)
	got := make([]View, len(views))
	for i, k := range placeOrder(places) {
		got[k] = views[i]
	}
	if len(got) != len(want) {
		t.Fatalf("%d views, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID {
			t.Fatalf("view %d is %s, want %s", i, got[i].ID, want[i].ID)
		}
	}
	if len(placeOrder(nil)) != 0 {
		t.Fatal("no places: want none")
	}
}

func mustEncodeSummary(t *testing.T, v View) []byte {
	t.Helper()
	data, err := encodeSummary(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
