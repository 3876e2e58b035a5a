package embed

import (
	"cmp"
	"context"
	"iter"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Unit is one training context of the built-in model: a Head (an
// identifier, or a memory's anchored symbols and tags) and a Body (a doc
// comment, the names a function calls, a memory's title and body). Words
// co-occur within Window positions of the sequence Head+Body, and every
// Head word co-occurs with each of the first headSpan Body words, so an
// identifier's subwords land near the words of the comment that explains
// it.
type Unit struct {
	Head, Body string
}

// TrainOptions bound the training of the built-in model. Zero fields take
// the defaults in brackets.
type TrainOptions struct {
	Dim      int // vector length [128]
	MaxVocab int // most frequent words kept [16384]
	// MinCount is the fewest occurrences of a vocabulary word [2, or 1
	// for a corpus under 50,000 words, where most words are rare].
	MinCount int
	Window   int // co-occurrence window, in words on each side [5]
	// PowerIters is the number of power iterations of the randomized SVD
	// [2].
	PowerIters int
	// NoPrior leaves the general-domain prior (Prior) out: the model then
	// knows only the units' words.
	NoPrior bool
	// PriorWeight is the prior's share w of the cosine, in (0, 1)
	// [DefaultPriorWeight].
	PriorWeight float64
}

func (o *TrainOptions) defaults() {
	if o.Dim <= 0 {
		o.Dim = 128
	}
	if o.MaxVocab <= 0 {
		o.MaxVocab = 16384
	}
	if o.Window <= 0 {
		o.Window = 5
	}
	if o.PowerIters <= 0 {
		o.PowerIters = 2
	}
	if !(o.PriorWeight > 0 && o.PriorWeight < 1) {
		o.PriorWeight = DefaultPriorWeight
	}
}

// Bounds of one unit and of the Head×Body pairs.
const (
	maxHeadWords = 24
	maxBodyWords = 160
	headSpan     = 32
)

// cdsAlpha is the context-distribution smoothing exponent of PPMI (Levy,
// Goldberg & Dagan 2015).
const cdsAlpha = 0.75

// minCommonUnits is the smallest corpus whose common component is removed.
const minCommonUnits = 200

// TrainBuiltin learns a Builtin model from units:
//
//  1. words (Words) with at least MinCount occurrences, the MaxVocab most
//     frequent, form the vocabulary;
//  2. co-occurrence counts within each unit (see Unit);
//  3. positive pointwise mutual information with context-distribution
//     smoothing α = 0.75: PPMI(w,c) = max(0, log(#(w,c)·Σc'#(c')^α /
//     (#(w)·#(c)^α))) (Levy & Goldberg 2014; Levy, Goldberg & Dagan 2015);
//  4. rank-Dim randomized SVD of the PPMI matrix, PowerIters power
//     iterations, 10 columns of oversampling (Halko, Martinsson & Tropp
//     2011); word vectors W = U·Σ^½ (eigenvalue weighting p = 0.5, Levy
//     et al. 2015), rows L2-normalised;
//  5. the first principal component of the text vectors of (up to 4,096)
//     units, removed from every text vector (Arora et al. 2017), for
//     corpora of at least 200 units;
//  6. unless opts.NoPrior, the general-domain prior (Prior) is attached
//     with weight opts.PriorWeight (see Builtin).
//
// Training is deterministic: the same units give the same weights and the
// same Model id. It fails when ctx ends or the embedded prior does not
// decode.
func TrainBuiltin(ctx context.Context, units iter.Seq[Unit], opts TrainOptions) (*Builtin, error) {
	opts.defaults()
	c := readCorpus(units)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.MinCount <= 0 {
		opts.MinCount = 2
		if c.total < 50000 {
			opts.MinCount = 1
		}
	}
	vocab := selectVocab(c.words, c.counts, opts.MinCount, opts.MaxVocab)
	vocabWords := c.appendWordsOf(make([]string, 0, len(vocab)), vocab)
	b := &Builtin{dim: opts.Dim, words: newWordTable(vocabWords), vocab: vocabWords, counts: make([]uint32, len(vocab)), total: c.total}
	rows := make([]int32, len(c.words)) // word id → vocabulary row, or -1
	for i := range rows {
		rows[i] = -1
	}
	for i, id := range vocab {
		rows[id] = int32(i)
		b.counts[i] = uint32(min(c.counts[id], math.MaxUint32))
	}
	a := ppmi(cooccurrences(rows, c, opts.Window, len(vocab)), len(vocab))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.vecs = wordVectors(a, opts.Dim, opts.PowerIters)
	b.common = commonComponent(b, c)
	if !opts.NoPrior {
		p, err := Prior()
		if err != nil {
			return nil, err
		}
		if p != nil {
			b.prior, b.priorWeight = p, float32(opts.PriorWeight)
		}
	}
	if err := b.setID(); err != nil {
		return nil, err
	}
	return b, ctx.Err()
}

// corpus is the training units' word sequences (a unit's Head words, at
// most maxHeadWords, then its Body words, at most maxBodyWords; units
// without words left out), each word as the id of its distinct string:
// 4 bytes a word instead of a string header's 16 (4.8 million words for
// 142,000 units at 100,000 memories on prometheus: 77 MB of headers), in
// blocks of corpusBlock ids that are never copied to grow (a single
// growing slice allocated five times its final size).
type corpus struct {
	words  []string  // distinct words, by id in order of first occurrence
	counts []int     // occurrences, by word id
	blocks [][]int32 // word ids; a sequence lies within one block
	seqs   []seqRef
	total  uint64 // words in all sequences
}

// seqRef locates a sequence of a corpus: blocks[block][start:end], of
// which the first head words are its unit's Head words.
type seqRef struct{ block, start, end, head int32 }

// corpusBlock is the number of word ids of a corpus block (256 KiB).
const corpusBlock = 1 << 16

// readCorpus reads units into a corpus.
func readCorpus(units iter.Seq[Unit]) *corpus {
	c := &corpus{}
	ids := map[string]int32{}
	var buf []string
	var cur []int32 // the last block
	for u := range units {
		buf = appendWords(buf[:0], u.Head)
		if len(buf) > maxHeadWords {
			buf = buf[:maxHeadWords]
		}
		nh := len(buf)
		buf = appendWords(buf, u.Body)
		if len(buf) > nh+maxBodyWords {
			buf = buf[:nh+maxBodyWords]
		}
		if len(buf) == 0 {
			continue
		}
		if len(cur)+len(buf) > cap(cur) {
			cur = make([]int32, 0, max(corpusBlock, len(buf)))
			c.blocks = append(c.blocks, nil)
		}
		start := len(cur)
		for _, w := range buf {
			id, ok := ids[w]
			if !ok {
				id = int32(len(c.words))
				ids[w] = id
				c.words = append(c.words, w)
				c.counts = append(c.counts, 0)
			}
			c.counts[id]++
			cur = append(cur, id)
		}
		c.blocks[len(c.blocks)-1] = cur
		c.seqs = append(c.seqs, seqRef{block: int32(len(c.blocks) - 1), start: int32(start), end: int32(len(cur)), head: int32(nh)})
		c.total += uint64(len(buf))
	}
	return c
}

// seq returns the word ids of sequence s.
func (c *corpus) seq(s int) []int32 {
	r := c.seqs[s]
	return c.blocks[r.block][r.start:r.end]
}

// appendWordsOf appends the words of ids to dst and returns it.
func (c *corpus) appendWordsOf(dst []string, ids []int32) []string {
	for _, id := range ids {
		dst = append(dst, c.words[id])
	}
	return dst
}

// selectVocab returns the ids of the words with at least minCount
// occurrences, most frequent first (ties by word), at most maxVocab.
func selectVocab(words []string, counts []int, minCount, maxVocab int) []int32 {
	var vocab []int32
	for id, c := range counts {
		if c >= minCount {
			vocab = append(vocab, int32(id))
		}
	}
	sort.Slice(vocab, func(i, j int) bool {
		if ci, cj := counts[vocab[i]], counts[vocab[j]]; ci != cj {
			return ci > cj
		}
		return words[vocab[i]] < words[vocab[j]]
	})
	if len(vocab) > maxVocab {
		vocab = vocab[:maxVocab]
	}
	return vocab
}

// cooccurrences counts the symmetric co-occurrences of vocabulary words
// (see Unit) in the sequences of c; rows maps a word id to its
// vocabulary row, -1 for a word outside the vocabulary, and n is the
// vocabulary's size. The counts are sharded by row: the count of (i, j)
// is in shard i % len(shards), one shard per core up to coShards, each
// counted by its own goroutine over every sequence (the map updates were
// a third of the training, which the first `remember --batch` waits
// for). Counts are integers, so they do not depend on the sharding.
func cooccurrences(rows []int32, c *corpus, window, n int) (shards []*coShard) {
	shards = make([]*coShard, max(1, min(runtime.GOMAXPROCS(0), coShards)))
	var wg sync.WaitGroup
	for g := range shards {
		sh := newCoShard(int32(g), int32(len(shards)), int32(min(n, coDense)))
		shards[g] = sh
		nsh := int32(len(shards))
		wg.Go(func() {
			add := func(i, j int32) {
				if i == j {
					return
				}
				if i%nsh == sh.g {
					sh.add(i, j)
				}
				if j%nsh == sh.g {
					sh.add(j, i)
				}
			}
			for pairs := range c.seqPairs(rows, window) {
				for _, p := range pairs {
					add(p.i, p.j)
				}
			}
		})
	}
	wg.Wait()
	return shards
}

// seqPairs yields the co-occurrences of each sequence of c in turn
// (pairsOf), in one slice reused from sequence to sequence.
func (c *corpus) seqPairs(rows []int32, window int) iter.Seq[[]rowPair] {
	return func(yield func([]rowPair) bool) {
		var ids []int32
		var pairs []rowPair
		for s := range c.seqs {
			ids, pairs = c.pairsOf(s, rows, window, ids[:0], pairs[:0])
			if !yield(pairs) {
				return
			}
		}
	}
}

// rowPair is one co-occurrence of vocabulary rows i and j, i the earlier
// word.
type rowPair struct{ i, j int32 }

// pairsOf appends to pairs the co-occurrences of vocabulary words in
// sequence s of c (see Unit): for each word, the words within window
// positions after it, and for a head word the body words past its window
// up to headSpan into the body. rows maps a word id to its vocabulary
// row, -1 for a word outside the vocabulary; ids is scratch space for the
// sequence's rows. It returns ids and pairs, grown as needed (a slice
// per sequence instead of a callback per pair: the callback's indirect
// calls made counting 20 % slower).
func (c *corpus) pairsOf(s int, rows []int32, window int, ids []int32, pairs []rowPair) ([]int32, []rowPair) {
	for _, w := range c.seq(s) {
		ids = append(ids, rows[w])
	}
	head := int(c.seqs[s].head)
	for p, i := range ids {
		if i < 0 {
			continue
		}
		for q := p + 1; q < len(ids) && q <= p+window; q++ {
			if ids[q] >= 0 {
				pairs = append(pairs, rowPair{i, ids[q]})
			}
		}
		if p < head { // head word × body words beyond the window
			for q := max(head, p+window+1); q < len(ids) && q < head+headSpan; q++ {
				if ids[q] >= 0 {
					pairs = append(pairs, rowPair{i, ids[q]})
				}
			}
		}
	}
	return ids, pairs
}

// coShards bounds the goroutines (and maps) of cooccurrences: each scans
// every sequence, so past a few the scans cost more than the shards save.
const coShards = 4

// coDense is the side of the square of the most frequent vocabulary words
// (rows and columns below it: the vocabulary is in frequency order)
// whose co-occurrence counts the coShards keep in arrays instead of
// maps: 16 MiB of counts in all (as much as the maps held for 1 million
// pairs), which take most of the additions (word frequencies fall off as
// a power law), each an index instead of a hash probe. Counting and PPMI
// of sympy's corpus (1.9 million words, 7,284 words of vocabulary), on
// one core: all in maps 771 ms, a square of 1,024 374 ms, of 2,048
// 256 ms, of 4,096 246 ms (docs/benchmarks.md, session 25).
const coDense = 2048

// coShard holds the co-occurrence counts of the rows i with i % n == g:
// those of (i, j) with i and j below d in dense (the shard's k-th such
// row, i = k·n + g, at k·d), the others in sparse, keyed by i<<32|j.
// Counts are uint32: one position of the corpus adds at most
// 2·(window + headSpan) counts to a pair, so a pair overflows only in a
// corpus of over 50 million words in which it occurs at almost every
// word (sympy's has 1–2 million).
type coShard struct {
	g, n, d int32
	dense   []uint32
	sparse  map[uint64]uint32
}

// newCoShard returns the empty shard g of n, with a dense square of side d.
func newCoShard(g, n, d int32) *coShard {
	return &coShard{g: g, n: n, d: d, dense: make([]uint32, int((d+n-1)/n)*int(d)), sparse: map[uint64]uint32{}}
}

// add counts one co-occurrence of (i, j); i is a row of the shard.
func (s *coShard) add(i, j int32) {
	if i < s.d && j < s.d {
		s.dense[int(i/s.n)*int(s.d)+int(j)]++
		return
	}
	s.sparse[uint64(i)<<32|uint64(j)]++
}

// coCount is one sparse count of a coShard, keyed by row<<32|column.
type coCount struct {
	key   uint64
	count uint32
}

// csr is a sparse matrix in compressed sparse row form.
type csr struct {
	n      int // rows and columns
	rowPtr []int
	col    []int32
	val    []float64
}

// ppmi turns the co-occurrence counts of shards (cooccurrences) of an
// n-word vocabulary into the PPMI matrix (see TrainBuiltin). Row sums
// are sums of integer counts, exact in float64 whatever their order.
func ppmi(shards []*coShard, n int) *csr {
	rowSum := make([]float64, n)
	entries := 0                             // counts, an upper bound of the matrix's
	sorted := make([][]coCount, len(shards)) // each shard's sparse counts by key
	for g, s := range shards {
		l := make([]coCount, 0, len(s.sparse))
		for k, c := range s.sparse {
			l = append(l, coCount{k, c})
			rowSum[k>>32] += float64(c)
		}
		s.sparse = nil
		slices.SortFunc(l, func(a, b coCount) int { return cmp.Compare(a.key, b.key) })
		sorted[g] = l
		entries += len(l)
		for i := g; i < int(s.d); i += len(shards) {
			for _, c := range s.denseRow(i) {
				if c != 0 {
					rowSum[i] += float64(c)
					entries++
				}
			}
		}
	}
	b := newPPMIBuilder(rowSum, entries)
	next := make([]int, len(shards)) // the first unread count of each sorted list
	for i := 0; i < n; i++ {
		g := i % len(shards)
		s := shards[g]
		if i < int(s.d) { // columns below d, then the sparse ones (at or past d)
			for j, c := range s.denseRow(i) {
				if c != 0 {
					b.put(i, j, float64(c))
				}
			}
		}
		l := sorted[g]
		for ; next[g] < len(l) && int(l[next[g]].key>>32) == i; next[g]++ {
			b.put(i, int(uint32(l[next[g]].key)), float64(l[next[g]].count))
		}
	}
	return b.matrix()
}

// ppmiBuilder makes the PPMI matrix (see TrainBuiltin) of co-occurrence
// counts given in row-major order, from their row sums: PPMI(i, j) =
// max(0, log(#(i,j)·Σc #(c)^α / (#(i)·#(j)^α))), the counts symmetric
// (column sums equal row sums), entries of 0 left out.
type ppmiBuilder struct {
	m            *csr
	rowSum, colA []float64
	sumA         float64
}

// newPPMIBuilder returns the builder of an n×n matrix, n = len(rowSum),
// with room for entries entries.
func newPPMIBuilder(rowSum []float64, entries int) *ppmiBuilder {
	n := len(rowSum)
	b := &ppmiBuilder{m: &csr{n: n, rowPtr: make([]int, n+1), col: make([]int32, 0, entries), val: make([]float64, 0, entries)}, rowSum: rowSum, colA: make([]float64, n)}
	for j, c := range rowSum {
		b.colA[j] = math.Pow(c, cdsAlpha)
		b.sumA += b.colA[j]
	}
	return b
}

// put adds the entry of count c at (i, j), after every entry of the rows
// before i and of the columns before j in row i.
func (b *ppmiBuilder) put(i, j int, c float64) {
	v := math.Log(c * b.sumA / (b.rowSum[i] * b.colA[j]))
	if v <= 0 {
		return
	}
	b.m.rowPtr[i+1]++
	b.m.col = append(b.m.col, int32(j))
	b.m.val = append(b.m.val, v)
}

// matrix returns the matrix put so far.
func (b *ppmiBuilder) matrix() *csr {
	for i := 0; i < b.m.n; i++ {
		b.m.rowPtr[i+1] += b.m.rowPtr[i]
	}
	return b.m
}

// denseRow returns the dense counts of row i (below d, of the shard).
func (s *coShard) denseRow(i int) []uint32 {
	k := i / int(s.n)
	return s.dense[k*int(s.d) : (k+1)*int(s.d)]
}

// commonComponent returns the first principal direction (uncentred, as
// Arora et al. 2017) of the text vectors of up to 4,096 evenly spread
// sequences of c, by 30 power iterations; nil when there is none or the
// corpus has fewer than minCommonUnits sequences (on a handful of texts
// the "common" direction is one of the texts, and removing it erases
// that text).
func commonComponent(b *Builtin, c *corpus) []float32 {
	n := len(c.seqs)
	if len(b.vocab) == 0 || n < minCommonUnits {
		return nil
	}
	step := max(1, n/4096)
	var vs [][]float32
	var words []string
	for i := 0; i < n; i += step {
		words = c.appendWordsOf(words[:0], c.seq(i))
		if v := b.embedWords(words); norm(v) > 0 {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	u := make([]float32, b.dim)
	for _, v := range vs {
		axpy(1, v, u)
	}
	Normalize(u)
	for it := 0; it < 30; it++ {
		next := make([]float32, b.dim)
		for _, v := range vs {
			axpy(dot(v, u), v, next)
		}
		Normalize(next)
		u = next
	}
	if norm(u) == 0 {
		return nil
	}
	return u
}
