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
// (a query of another model), and with an error wrapping
// ErrVectorsCorrupt when the first scan of a base file's rows finds its
// CRC-32 wrong (rowsCheck: the scan sums the rows as it reads them);
// the index is then empty at an unknown generation, to be rebuilt, and
// the scan's results are discarded.
func (v *Vectors) SearchVector(q []float32, limit int) ([]Scored, error) {
	hits, _, err := v.searchModel(q, limit, "")
	return hits, err
}

// searchModel is SearchVector when the rows are of model (of any model
// when model is ""); same is false (and nothing searched) when they are
// not. The first scan of rows whose checksum is not yet verified holds
// mu for writing, since it clears check.
func (v *Vectors) searchModel(q []float32, limit int, model string) (hits []Scored, same bool, err error) {
	v.mu.RLock()
	if model != "" && v.st.model != model {
		v.mu.RUnlock()
		return nil, false, nil
	}
	if v.st.check == nil {
		hits, err = v.st.scan(q, limit, nil)
		v.mu.RUnlock()
		return hits, true, err
	}
	v.mu.RUnlock()
	v.mu.Lock() // the first scan: it verifies the rows and clears check
	defer v.mu.Unlock()
	if model != "" && v.st.model != model {
		return nil, false, nil
	}
	hits, err = v.checkedScanLocked(q, limit)
	return hits, true, err
}

// checkedScanLocked is SearchVector's scan when the rows may not be
// verified yet; the caller holds mu for writing.
func (v *Vectors) checkedScanLocked(q []float32, limit int) ([]Scored, error) {
	st := v.st
	c := st.check
	if c == nil || st.rows() == 0 || limit <= 0 || len(q) != st.dim || vek32.Dot(q, q) == 0 {
		return st.scan(q, limit, nil) // verified meanwhile, or no scan
	}
	out, err := st.scan(q, limit, c)
	st.check = nil
	if !c.ok() {
		return nil, v.corrupt()
	}
	return out, err
}

// scanChunk is the number of rows a checking scan sums before it reads
// them: 256 rows of 192 float32 are 192 KiB, which stay in a core's
// L2 cache between the two passes.
const scanChunk = 256

// scan is SearchVector's scan of s's rows. With c set (s's rows not yet
// verified), each chunk of the base file's rows is added to c's CRC-32
// just before its dot products, so that the rows are read from memory
// once; the caller compares the sum when the scan returns.
func (s *vecState) scan(q []float32, limit int, c *rowsCheck) ([]Scored, error) {
	if s.rows() == 0 || limit <= 0 {
		return nil, nil
	}
	if len(q) != s.dim {
		return nil, fmt.Errorf("query vector of length %d for an index of dimension %d (model %s)", len(q), s.dim, s.model)
	}
	if vek32.Dot(q, q) == 0 {
		return nil, nil
	}
	h := &topK{st: s}
	rowBytes := 4 * s.dim
	for i := range s.rows() {
		if c != nil && i%scanChunk == 0 {
			c.sum(scanChunk * rowBytes)
		}
		x := vek32.Dot(q, s.row(i))
		if x <= 0 {
			continue
		}
		if len(h.rows) < limit {
			heap.Push(h, hit{i, x})
		} else if h.better(hit{i, x}, h.rows[0]) {
			h.rows[0] = hit{i, x}
			heap.Fix(h, 0)
		}
	}
	out := make([]Scored, len(h.rows))
	for n := len(h.rows) - 1; n >= 0; n-- {
		x := heap.Pop(h).(hit)
		out[n] = Scored{ID: s.id(x.row), Score: float64(x.score)}
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
