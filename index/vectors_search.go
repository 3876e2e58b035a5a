package index

import (
	"container/heap"
	"fmt"

	"github.com/viterin/vek/vek32"
)

// SearchVector returns the at most limit documents nearest to the unit
// vector q by cosine similarity (the dot product of unit vectors), best
// first, ties by id ascending; rows of similarity ≤ 0 (unrelated) are left out. It is an exact, brute-force scan of every row
// (SIMD dot products by github.com/viterin/vek). A zero q matches
// nothing. It fails when q's length differs from the index's dimension
// (a query of another model).
func (v *Vectors) SearchVector(q []float32, limit int) ([]Scored, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.searchLocked(q, limit)
}

// searchLocked is SearchVector; the caller holds mu for reading.
func (v *Vectors) searchLocked(q []float32, limit int) ([]Scored, error) {
	st := v.st
	if st.rows() == 0 || limit <= 0 {
		return nil, nil
	}
	if len(q) != st.dim {
		return nil, fmt.Errorf("query vector of length %d for an index of dimension %d (model %s)", len(q), st.dim, st.model)
	}
	if vek32.Dot(q, q) == 0 {
		return nil, nil
	}
	h := &topK{st: st}
	for i := range st.rows() {
		s := vek32.Dot(q, st.row(i))
		if s <= 0 {
			continue
		}
		if len(h.rows) < limit {
			heap.Push(h, hit{i, s})
		} else if h.better(hit{i, s}, h.rows[0]) {
			h.rows[0] = hit{i, s}
			heap.Fix(h, 0)
		}
	}
	out := make([]Scored, len(h.rows))
	for n := len(h.rows) - 1; n >= 0; n-- {
		x := heap.Pop(h).(hit)
		out[n] = Scored{ID: st.id(x.row), Score: float64(x.score)}
	}
	return out, nil
}

type hit struct {
	row   int
	score float32
}

// topK is a min-heap of hits: the worst kept hit is at the root.
type topK struct {
	st   *vecState // for the ids of rows
	rows []hit
}

// better orders hits by score descending, then id ascending.
func (h *topK) better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return h.st.idLess(a.row, b.row)
}

func (h *topK) Len() int           { return len(h.rows) }
func (h *topK) Less(i, j int) bool { return h.better(h.rows[j], h.rows[i]) }
func (h *topK) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *topK) Push(x any)         { h.rows = append(h.rows, x.(hit)) }
func (h *topK) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}
