package index

import (
	"container/heap"
	"errors"
	"fmt"
	"math"

	"github.com/viterin/vek/vek32"
)

// SearchVector returns the at most limit documents nearest to the unit
// vector q by cosine similarity (the dot product of unit vectors), best
// first, ties by id ascending; rows of similarity ≤ 0 (unrelated) are
// left out. The results and scores are those of an exact, brute-force
// scan of every row (float32 dot products by github.com/viterin/vek):
// every row of a GLOSSVX3 base is bounded from its int8 form and only
// the rows that can reach the results are scored in float32
// (vecState.compactCandidates). A zero q matches nothing. It fails when
// q's length differs from the index's dimension (a query of another
// model), and with an error wrapping ErrVectorsCorrupt when the first
// scan of a base file's rows finds its CRC-32 wrong (rowsCheck: the scan
// sums the int8 rows, or a GLOSSVX2 file's rows, as it reads them), or
// a float32 row it reads does not match its own CRC-32; the index is
// then empty at an unknown generation, to be rebuilt, and the scan's
// results are discarded.
func (v *Vectors) SearchVector(q []float32, limit int) ([]Scored, error) {
	hits, _, err := v.searchModel(q, limit, "")
	return hits, err
}

// searchModel is SearchVector when the rows are of model (of any model
// when model is ""); same is false (and nothing searched) when they are
// not. The first scan of rows whose checksum is not yet verified holds
// mu for writing, since it clears or changes check; later scans of a
// GLOSSVX3 base whose float32 rows are not all verified yet check their
// candidates' rows (rowsCheck.rowOK) under the read lock.
func (v *Vectors) searchModel(q []float32, limit int, model string) (hits []Scored, same bool, err error) {
	v.mu.RLock()
	if model != "" && v.st.model != model {
		v.mu.RUnlock()
		return nil, false, nil
	}
	if c := v.st.check; c == nil || c.summed {
		st := v.st
		hits, err = st.scan(q, limit, c)
		v.mu.RUnlock()
		if errors.Is(err, errRowDamaged) {
			v.mu.Lock()
			defer v.mu.Unlock()
			if v.st == st {
				return nil, true, v.corrupt()
			}
			return nil, true, fmt.Errorf("%w: a vector row", ErrVectorsCorrupt)
		}
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

// WarmRows reads and verifies, in one pass, the float32 rows of a
// GLOSSVX3 base file that searches have not verified yet (rowsCheck: a
// search checks each candidate's row against its CRC-32 as it first reads
// it, the page faults and the CRC-32 of about 800 bytes per candidate
// then counting in that search); afterwards searches read the rows
// without checks, as for a verified GLOSSVX2 file. The mapped rows are
// populated first (MADV_POPULATE_READ where Linux has it), so they stay
// resident: 4·dim bytes per row, 77 MB at 100,000 rows of 192. For a
// long-running process (the daemon's warm-up), never a CLI search, which
// reads only its candidates' rows. Nothing for rows already verified, a
// GLOSSVX2 file (its first scan reads every row anyway) or rows on the
// heap. On a checksum mismatch the index is emptied as a search would
// (Vectors.corrupt) and an error wrapping ErrVectorsCorrupt is returned.
func (v *Vectors) WarmRows() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	st := v.st
	c := st.check
	if c == nil || c.rowCRC == nil {
		return nil
	}
	v.base.populate(c.rows)
	if err := st.verifyRows(); err != nil {
		return v.corrupt()
	}
	return nil
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
	if c.rowCRC != nil { // GLOSSVX3: the compact rows are summed, the float32 rows checked one by one
		if !c.restOK() || errors.Is(err, errRowDamaged) {
			return nil, v.corrupt()
		}
		return out, err
	}
	st.check = nil
	if !c.ok() {
		return nil, v.corrupt()
	}
	return out, err
}

// errRowDamaged is returned by vecState.scan when a candidate's float32
// row does not match its CRC-32; the caller empties the index
// (Vectors.corrupt).
var errRowDamaged = errors.New("vector row checksum mismatch")

// scanChunk is the number of rows a checking scan sums before it reads
// them: 256 rows of 192 float32 are 192 KiB, which stay in a core's
// L2 cache between the two passes.
const scanChunk = 256

// scan is SearchVector's scan of s's rows: the rows with a compact form
// through compactCandidates, then each candidate and every other row
// exactly. With c set (s's rows not yet verified), each chunk of the
// summed block of the base file (GLOSSVX2: the float32 rows, GLOSSVX3:
// the compact rows) is added to c's CRC-32 just before it is scored, so
// that the rows are read from memory once, and the caller compares the
// sum when the scan returns; the float32 row of each candidate of a
// GLOSSVX3 base is checked against its own CRC-32 before it is read
// (errRowDamaged).
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
	offer := func(i int) error {
		if c != nil && !c.rowOK(i) {
			return errRowDamaged
		}
		x := vek32.Dot(q, s.row(i))
		if x <= 0 {
			return nil
		}
		if len(h.rows) < limit {
			heap.Push(h, hit{i, x})
		} else if h.better(hit{i, x}, h.rows[0]) {
			h.rows[0] = hit{i, x}
			heap.Fix(h, 0)
		}
		return nil
	}
	first := 0 // the first row without a compact form
	if cands, ok := s.compactCandidates(q, limit, c); ok {
		first = len(s.comp) / compactStride(s.dim)
		for _, i := range cands {
			if err := offer(i); err != nil {
				return nil, err
			}
		}
	}
	rowBytes := 4 * s.dim
	for i := first; i < s.rows(); i++ {
		if c != nil && c.rowCRC == nil && i%scanChunk == 0 {
			c.sum(scanChunk * rowBytes)
		}
		if err := offer(i); err != nil {
			return nil, err
		}
	}
	out := make([]Scored, len(h.rows))
	for n := len(h.rows) - 1; n >= 0; n-- {
		x := heap.Pop(h).(hit)
		out[n] = Scored{ID: s.id(x.row), Score: float64(x.score)}
	}
	return out, nil
}

// compactCandidates returns the rows with a compact form (s.comp) that
// may be among the limit best of an exact scan for the unit vector q
// (ascending): each row's cosine is bounded from its compact form
// (compactQuery.boundsDot); L is the limit-th largest positive lower bound,
// so at least limit rows score at least L, and a row whose upper bound
// is below L, or not positive, cannot be among the limit best (ties of
// score included, since its score is below L strictly). With c set
// whose compact rows are not summed yet, they are summed a chunk at a
// time as they are read. ok is false (no candidates, every row to be
// scored exactly) for an index without compact rows or a query whose
// quantization is not finite.
func (s *vecState) compactCandidates(q []float32, limit int, c *rowsCheck) (cands []int, ok bool) {
	if len(s.comp) == 0 {
		return nil, false
	}
	cq := newCompactQuery(q)
	if math.IsNaN(cq.k) || math.IsInf(cq.k, 0) || math.IsNaN(cq.scale) || math.IsInf(cq.scale, 0) {
		return nil, false
	}
	stride := compactStride(s.dim)
	n := len(s.comp) / stride
	sum := c != nil && c.rowCRC != nil && !c.summed
	// lows is a min-heap of the limit largest positive lower bounds
	// (pushLow, replaceLow); floor is its root once it holds limit.
	lows := make([]float64, 0, limit)
	floor := math.Inf(-1)
	type cand struct {
		row  int
		high float64
	}
	var kept []cand
	var dots [scanChunk]int32 // dotI8 of the query and each row of the chunk
	for i := 0; i < n; i += scanChunk {
		if sum {
			c.sum(scanChunk * stride)
		}
		m := min(scanChunk, n-i)
		block := s.comp[i*stride : (i+m)*stride]
		dotI8Block(cq.q, block, stride, dots[:m])
		for g := 0; g < m; g += skipGroup {
			ge := min(g+skipGroup, m)
			if len(lows) == limit && groupBelow(&cq, block, stride, dots[g:ge], g, floor) {
				continue
			}
			for k := g; k < ge; k++ {
				s := math.Float32frombits(le.Uint32(block[k*stride:]))
				lo, hi := cq.boundsDot(s, dots[k])
				if s >= 0 && !(hi > 0 && hi >= floor) {
					// lo < hi for a scale ≥ 0, so lo is below floor too:
					// no heap change (a negative scale, of a damaged row,
					// and NaN take the whole path; ±Inf is kept below)
					continue
				}
				if lo > 0 {
					if len(lows) < limit {
						lows = pushLow(lows, lo)
					} else if lo > lows[0] {
						replaceLow(lows, lo)
					}
					if len(lows) == limit {
						floor = lows[0]
					}
				}
				if hi > 0 && hi >= floor {
					kept = append(kept, cand{i + k, hi})
				}
			}
		}
	}
	cands = make([]int, 0, len(kept))
	for _, k := range kept {
		if k.high >= floor {
			cands = append(cands, k.row)
		}
	}
	return cands, true
}

// skipGroup is the number of consecutive rows compactCandidates bounds
// together (groupBelow) before it bounds them one by one.
const skipGroup = 16

// groupBelow reports whether no row of a group of compact rows can reach
// floor: dots are the group's dotI8 values and its first row is row
// first of block (stride bytes per row). With smax the largest row scale
// and dmax the largest dot, every row's upper bound boundsDot(s, d),
// fl(fl(fl(qs·s)·d) + fl(fl(qk·s) + 1e-9)) with qs, qk the query's scale
// and k, is at most boundsDot(smax, max(dmax, 0)), since rounded
// multiplication and addition of non-negative factors are monotonic
// (IEEE 754 §4.3: rounding preserves order) and qs, qk ≥ 0; so when that
// is below floor every row of the group is below it too (a relative
// slack of 1e-9 covers operations fused differently). A group holding a
// scale that is negative or not finite is never skipped (those rows are
// bounded one by one).
func groupBelow(cq *compactQuery, block []byte, stride int, dots []int32, first int, floor float64) bool {
	var smax float32
	dmax := int32(0)
	for k, d := range dots {
		s := math.Float32frombits(le.Uint32(block[(first+k)*stride:]))
		if !(s >= 0 && s <= math.MaxFloat32) {
			return false
		}
		smax = max(smax, s)
		dmax = max(dmax, d)
	}
	_, hi := cq.boundsDot(smax, dmax)
	return hi*(1+1e-9) < floor // slack: a few ulps, should a compiler fuse operations otherwise
}

// pushLow adds x to the min-heap h and returns it (h has room: its
// capacity is the limit).
func pushLow(h []float64, x float64) []float64 {
	h = append(h, x)
	for j := len(h) - 1; j > 0; {
		p := (j - 1) / 2
		if h[p] <= h[j] {
			break
		}
		h[p], h[j] = h[j], h[p]
		j = p
	}
	return h
}

// replaceLow replaces the root (the smallest) of the non-empty min-heap h
// with x and restores the heap order.
func replaceLow(h []float64, x float64) {
	h[0] = x
	for j := 0; ; {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r] < h[l] {
			l = r
		}
		if h[j] <= h[l] {
			return
		}
		h[j], h[l] = h[l], h[j]
		j = l
	}
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
