package embed

import "sync"

// wordMemo remembers the word vectors (and corpus frequencies p(w)) that
// Builtin.wordVectorInto had to compute rather than view: the rows of a
// prior read by UnmarshalPrior (int8 values times the column scales,
// normalised), the rows of a model loaded unaligned (raw), and the
// n-gram means of words outside the vocabulary (one row added per
// n-gram bucket, about a dozen per word). A batch of memories repeats
// most of its words, and these computations were 4.6 of the 8.3 CPU-s
// of embedding 80,000 memories on prometheus (pprof,
// docs/benchmarks.md); a remembered vector is the same float32 values,
// computed once.
//
// The memo holds at most wordMemoMax words per model (the first ones
// seen; no eviction), in blocks of wordMemoBlock vectors so that an
// embedding of a few words (one CLI query) allocates one small block.
// Entries are never modified once added, so a vector returned by get
// stays valid and unchanged. Safe for concurrent use.
type wordMemo struct {
	mu     sync.RWMutex
	at     map[string]int32 // word → entry; -1: the word has no vector
	blocks [][]float32      // entry i at blocks[i/wordMemoBlock], dim values each
	ps     []float64        // entry → p(w)
}

// wordMemoMax bounds the words a wordMemo holds: 16,384 vectors of 128
// dimensions are 8 MiB (prior rows are fewer dimensions).
const wordMemoMax = 1 << 14

// wordMemoBlock is the number of vectors of one block of a wordMemo.
const wordMemoBlock = 64

// get returns the remembered vector of w (a read-only view, dim values,
// or nil for a word without one) and p(w); ok is false when w is not
// remembered.
func (m *wordMemo) get(w string, dim int) (v []float32, p float64, ok bool) {
	m.mu.RLock()
	i, ok := m.at[w]
	if ok && i >= 0 {
		j := int(i) % wordMemoBlock * dim
		v, p = m.blocks[int(i)/wordMemoBlock][j:j+dim:j+dim], m.ps[i]
	}
	m.mu.RUnlock()
	return v, p, ok
}

// put remembers w's vector v (dim values, copied; nil: no vector) and
// p(w), unless w is remembered already or the memo is full; it returns
// the remembered copy of v, or v itself when nothing was added.
func (m *wordMemo) put(w string, v []float32, p float64, dim int) []float32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.at[w]; ok || len(m.at) >= wordMemoMax {
		return v
	}
	if m.at == nil {
		m.at = map[string]int32{}
	}
	if v == nil {
		m.at[w] = -1
		return nil
	}
	i := len(m.ps)
	if i%wordMemoBlock == 0 {
		m.blocks = append(m.blocks, make([]float32, wordMemoBlock*dim))
	}
	j := i % wordMemoBlock * dim
	out := m.blocks[i/wordMemoBlock][j : j+dim : j+dim]
	copy(out, v)
	m.ps = append(m.ps, p)
	m.at[w] = int32(i)
	return out
}
