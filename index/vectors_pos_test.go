package index

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gloss-dev/gloss/internal/idhash"
)

// vecState's id map finds each id's row, and no other, through any
// sequence of puts (new ids and replacements) and removes (the last row
// moved into the gap), with the real hash and with a hash of three values
// that most ids share.
func TestVecStatePos(t *testing.T) {
	for _, weak := range []bool{false, true} {
		if weak {
			defer func(f func(int) *idhash.Map) { newIDMap = f }(newIDMap)
			newIDMap = func(n int) *idhash.Map {
				return idhash.NewHash(n, func(id string) uint64 { return uint64(id[len(id)-1]) % 3 })
			}
		}
		s := &vecState{dim: 2}
		want := map[string]float32{} // id → the first value of its row
		rng := rand.New(rand.NewSource(3))
		for op := range 3000 {
			id := fmt.Sprintf("m%03d", rng.Intn(400))
			if rng.Intn(3) == 0 {
				s.remove(id)
				delete(want, id)
			} else {
				v := float32(op)
				s.put(id, uint64(op), []float32{v, 1})
				want[id] = v
			}
			if op%100 != 0 && op < 2900 {
				continue
			}
			if len(s.ids) != len(want) {
				t.Fatalf("weak %v, op %d: %d rows, want %d", weak, op, len(s.ids), len(want))
			}
			for i := range 400 {
				id := fmt.Sprintf("m%03d", i)
				r, ok := s.index(id)
				v, live := want[id]
				if ok != live || ok && (s.ids[r] != id || s.row(r)[0] != v) {
					t.Fatalf("weak %v, op %d: index(%s) = %d, %v; want live %v, value %v", weak, op, id, r, ok, live, v)
				}
			}
		}
		if weak && s.pos.Shared() == 0 {
			t.Fatal("no id shares a hash")
		}
	}
}
