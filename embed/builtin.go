package embed

import (
	"context"
	"encoding/binary"
	"math"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/gloss-dev/gloss/internal/syncx"
)

// Builtin is the default embedder: static word embeddings learned from
// the workspace itself (TrainBuiltin), needing no download or network.
//
// A word's vector is its row of the truncated SVD of the PPMI
// co-occurrence matrix (Levy, Goldberg & Dagan 2015), L2-normalised. A
// word outside the vocabulary gets the normalised mean of the vectors of
// its hashed character n-grams (3 to 5 characters of "<word>", hashed
// into subwordBuckets buckets as in fastText, Bojanowski et al. 2017),
// each bucket holding the mean vector of the vocabulary words whose
// n-grams fall into it (a closed-form variant of bag-of-subwords,
// Zhao, Mudgal & Liang 2018). A text's vector is the SIF-weighted mean of
// its words' vectors, weight a/(a+p(w)) with a = 1e-3 and p(w) the word's
// corpus frequency, minus its projection on the corpus's first principal
// component (Arora, Liang & Ma 2017), L2-normalised.
//
// With a prior (Prior, attached by TrainBuiltin unless
// TrainOptions.NoPrior), the vector of a text is the concatenation
// [√(1−w)·v_workspace, √w·v_prior] of its workspace vector and its vector
// under the prior (each computed as above, unit length or zero),
// L2-normalised, with w the prior weight (DefaultPriorWeight).
//
// A Builtin is immutable once trained or loaded and safe for concurrent
// use.
type Builtin struct {
	dim    int
	words  wordTable // word → row
	vocab  []string  // row → word
	counts []uint32  // row → corpus count
	total  uint64    // sum of counts of all words seen in training
	vecs   []float32 // len(vocab)*dim, rows L2-normalised; nil for a prior read by UnmarshalPrior (q) or for raw
	// raw holds the rows as stored (little-endian float32, len(vocab)*dim*4
	// bytes) of a model loaded from a file whose weights are not 4-aligned
	// in memory (a mapped file of a size not a multiple of 4, LoadBuiltin):
	// wordRow decodes a row when read, to the same values; nil otherwise.
	raw []byte
	// q and scales are the int8 rows (len(vocab)*dim) and per-dimension
	// scales of a prior read by UnmarshalPrior: its rows are dequantized
	// and normalised when read (wordRow) rather than all at load, which
	// cost a CLI search 10–15 ms (mostly page faults of 2.6 MB of fresh
	// heap, docs/benchmarks.md) for the few words of one query.
	q      []byte
	scales []float32
	common []float32 // first principal component of text vectors (unit, or zeros)
	id     string    // model id, with a hash of the weights

	prior       *Builtin // general-domain prior, or nil
	priorWeight float32  // w in (0, 1) when prior != nil

	// The n-gram buckets' rows (L2-normalised, or zero) are computed
	// when first needed, under subMu: the first subwordFills words
	// outside the vocabulary get the buckets they need alone (subPart,
	// fillSubwords), later ones the whole table (sub, buildSubwords).
	subMu    sync.Mutex
	sub      []float32            // subwordBuckets*dim, or nil
	subPart  map[uint32][]float32 // bucket → row (nil: zero), while sub is nil
	subFills int                  // fillSubwords calls so far

	memo wordMemo // vectors wordVectorInto computed (see wordMemo)
}

// subwordBuckets is the number of hash buckets of character n-grams.
const subwordBuckets = 1 << 14

// subwordFills is the number of times the n-gram buckets of a word
// outside the vocabulary are computed alone (fillSubwords: one pass
// hashing the vocabulary's n-grams, summing only the rows of the words
// that have the needed ones) before the whole table is built instead
// (buildSubwords: every word's row added to each of its buckets, 16,384
// rows). A CLI search embeds one query: building the whole table cost it
// about 20 ms of CPU, a tenth of the call, and a few MB of fresh heap
// (pprof at 100,000 memories, docs/benchmarks.md); a daemon embeds many
// and builds the table after its first few such words. Either way a
// bucket holds the same values: the same rows added in the same order.
const subwordFills = 8

// sifA is the SIF smoothing constant a (Arora et al. 2017 use 1e-3).
const sifA = 1e-3

var _ Embedder = (*Builtin)(nil)

// Model implements Embedder: "builtin:ppmi-svd-<dim>@<first 12 hex digits
// of the SHA-256 of builtinVersion and the saved weights>", with
// "+prior-<prior dim>" after the dimension when the model has a prior
// (whose id is part of the saved weights).
func (b *Builtin) Model() string { return b.id }

// Dim implements Embedder: the workspace dimension plus the prior's.
func (b *Builtin) Dim() int {
	if b.prior != nil {
		return b.dim + b.prior.dim
	}
	return b.dim
}

// PriorModel returns the model id of the prior combined with the
// workspace vectors, or "" for none.
func (b *Builtin) PriorModel() string {
	if b.prior == nil {
		return ""
	}
	return b.prior.id
}

// VocabSize returns the number of words with a learned vector.
func (b *Builtin) VocabSize() int { return len(b.vocab) }

// Embed implements Embedder. It never fails except when ctx ends; a text
// without known words or n-grams gets the zero vector. Texts are
// embedded on up to GOMAXPROCS goroutines when there are at least
// embedShare per goroutine (each text's vector is EmbedText's, whatever
// the goroutine: the same vectors as one at a time).
func (b *Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	err := syncx.Ranges(len(texts), embedShare, func(lo, hi int) error {
		return b.embedRange(ctx, texts[lo:hi], out[lo:hi])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// embedShare is the least number of texts an Embed goroutine is given.
const embedShare = 64

// embedRange sets out[i] to the vector of texts[i], checking ctx every
// 256 texts.
func (b *Builtin) embedRange(ctx context.Context, texts []string, out [][]float32) error {
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		out[i] = b.EmbedText(t)
	}
	return nil
}

// EmbedText returns the vector of one text (see Builtin).
func (b *Builtin) EmbedText(text string) []float32 {
	sc := embedScratch.Get().(*textScratch)
	defer embedScratch.Put(sc)
	sc.words = appendWords(sc.words[:0], text)
	out := make([]float32, b.Dim())
	b.embedWordsInto(out[:b.dim], sc.words, sc)
	if b.prior == nil {
		clear(sc.words) // the pool holds no words
		return out
	}
	b.prior.embedWordsInto(out[b.dim:], sc.words, sc)
	clear(sc.words)
	b.weighPrior(out)
	return out
}

// weighPrior weighs the two parts of a vector of a model with a prior,
// out (the model's b.dim values, then the prior's), by √(1−w) and √w
// (w = b.priorWeight), and normalizes it.
func (b *Builtin) weighPrior(out []float32) {
	ws, ps := float32(math.Sqrt(float64(1-b.priorWeight))), float32(math.Sqrt(float64(b.priorWeight)))
	for i := range out {
		if i < b.dim {
			out[i] *= ws
		} else {
			out[i] *= ps
		}
	}
	Normalize(out)
}

// textScratch is the scratch of an EmbedText call, pooled (embedScratch):
// the text's words and the float buffers of embedWordsInto. Made per
// call, they were a tenth of a +80,000 memory batch's allocations (heap
// profile, docs/benchmarks.md).
type textScratch struct {
	words []string
	buf   []float32
}

var embedScratch = sync.Pool{New: func() any { return new(textScratch) }}

// embedWords returns the vector of words (embedWordsInto into a new
// slice of b.dim values).
func (b *Builtin) embedWords(words []string) []float32 {
	v := make([]float32, b.dim)
	b.embedWordsInto(v, words, &textScratch{})
	return v
}

// embedWordsInto sets v (b.dim values, all zero) to the vector of words:
// the sum of their unit vectors weighted by a/(a+p(w)) (SIF, Arora et
// al. 2017), the common direction removed, normalized. sc.buf is grown
// to the 2·b.dim floats it uses.
func (b *Builtin) embedWordsInto(v []float32, words []string, sc *textScratch) {
	if cap(sc.buf) < 2*b.dim {
		sc.buf = make([]float32, 2*b.dim)
	}
	buf, tmp := sc.buf[:b.dim:b.dim], sc.buf[b.dim:2*b.dim]
	for _, w := range words {
		wv, p := b.wordVectorInto(w, buf)
		if wv == nil {
			continue
		}
		addScaled(float32(sifA/(sifA+p)), wv, v, tmp)
	}
	if len(b.common) == b.dim {
		axpy(-dot(v, b.common), b.common, v)
	}
	Normalize(v)
}

// wordVector returns the unit vector of w and its corpus frequency p(w)
// (0 for words outside the vocabulary), or nil when w has neither a row
// nor a known n-gram.
func (b *Builtin) wordVector(w string) ([]float32, float64) { return b.wordVectorInto(w, nil) }

// wordVectorInto is wordVector. The result is read-only: a view of the
// model's rows, a vector remembered in b.memo (wordMemo), or, once the
// memo is full, a prior's row decoded into buf (dim values; nil: a new
// slice) or a new slice.
func (b *Builtin) wordVectorInto(w string, buf []float32) ([]float32, float64) {
	r, ok := b.words.lookup(w)
	if ok && b.q == nil && b.raw == nil {
		return b.vecs[int(r)*b.dim : (int(r)+1)*b.dim], b.wordP(r)
	}
	if v, p, hit := b.memo.get(w, b.dim); hit {
		return v, p
	}
	var v []float32
	p := 0.0
	if ok {
		v, p = b.wordRow(int(r), buf), b.wordP(r)
	} else {
		v = b.subwordVector(w)
	}
	return b.memo.put(w, v, p, b.dim), p
}

// wordP returns the corpus frequency p(w) of vocabulary row r (0 for a
// model without counts).
func (b *Builtin) wordP(r int32) float64 {
	if b.total == 0 {
		return 0
	}
	return float64(b.counts[r]) / float64(b.total)
}

// subwordVector returns the vector of a word outside the vocabulary: the
// normalised sum of its n-gram buckets' rows (see Builtin), or nil when
// none has a row.
func (b *Builtin) subwordVector(w string) []float32 {
	v := make([]float32, b.dim)
	n := 0
	for _, row := range b.subwordRows(ngramHashes(w)) {
		if len(row) == 0 || (row[0] == 0 && norm(row) == 0) {
			continue
		}
		axpy(1, row, v)
		n++
	}
	if n == 0 || norm(v) == 0 {
		return nil
	}
	Normalize(v)
	return v
}

// wordRow returns the unit vector of vocabulary row r: a view of vecs;
// for a model loaded with raw rows its stored float32 values decoded into
// buf; for a prior read by UnmarshalPrior its int8 row times the column
// scales, normalised, written to buf (dim values; nil: a new slice). The
// decoding is the one UnmarshalPrior did for every row before, so the
// values are the same.
func (b *Builtin) wordRow(r int, buf []float32) []float32 {
	if b.q == nil && b.raw == nil {
		return b.vecs[r*b.dim : (r+1)*b.dim]
	}
	if buf == nil {
		buf = make([]float32, b.dim)
	}
	if b.raw != nil {
		row := b.raw[r*b.dim*4 : (r+1)*b.dim*4]
		for j := range buf[:b.dim] {
			buf[j] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*j:]))
		}
		return buf
	}
	qrow := b.q[r*b.dim : (r+1)*b.dim]
	for j, s := range b.scales {
		buf[j] = float32(int8(qrow[j])) * s
	}
	Normalize(buf)
	return buf
}

// subwordRows returns the rows of the n-gram buckets hs (nil or zero for
// a bucket no vocabulary word's n-gram falls into), computing the missing
// ones (see subwordFills). The rows are not modified afterwards.
func (b *Builtin) subwordRows(hs []uint32) [][]float32 {
	b.subMu.Lock()
	defer b.subMu.Unlock()
	if b.sub == nil {
		missing := map[uint32]bool{}
		for _, h := range hs {
			if _, ok := b.subPart[h]; !ok {
				missing[h] = true
			}
		}
		switch {
		case len(missing) == 0:
		case b.subFills < subwordFills:
			b.fillSubwords(missing)
			b.subFills++
		default:
			b.buildSubwords()
			b.subPart = nil
		}
	}
	out := make([][]float32, len(hs))
	for i, h := range hs {
		if b.sub != nil {
			out[i] = b.sub[int(h)*b.dim : (int(h)+1)*b.dim]
		} else {
			out[i] = b.subPart[h]
		}
	}
	return out
}

// WarmSubwords builds the whole table of n-gram bucket rows
// (buildSubwords: subwordBuckets × dim float32s, 4 MiB per 64
// dimensions) of the model and of its prior now, unless built already,
// so that no later embedding of a word outside the vocabulary computes
// buckets. A long-lived process calls it once at start-up
// (memory.Workspace.WarmEmbedder): otherwise its first subwordFills
// queries with such words each pass over the whole vocabulary
// (fillSubwords) and the next one builds the table. The rows are the
// same, bit for bit, as the ones filled a word at a time
// (TestSubwordsFilledAsBuilt), so embeddings do not change.
func (b *Builtin) WarmSubwords() {
	b.subMu.Lock()
	if b.sub == nil {
		b.buildSubwords()
		b.subPart = nil
	}
	b.subMu.Unlock()
	if b.prior != nil {
		b.prior.WarmSubwords()
	}
}

// fillSubwords computes the n-gram buckets of missing as buildSubwords
// would (the rows of the words having an n-gram in the bucket, added in
// vocabulary order, normalised) and adds them to subPart. The caller
// holds subMu. The pass hashes every vocabulary word's n-grams into
// reused buffers (appendNgramHashes) and tests buckets in a table of
// subwordBuckets flags: a CLI search with a word outside the vocabulary
// runs one such pass per model (the workspace's and its prior), which
// allocated three slices per vocabulary word and hashed through a map
// before (about 13 ms of CPU per such search at 100,000 memories,
// docs/benchmarks.md).
func (b *Builtin) fillSubwords(missing map[uint32]bool) {
	if b.subPart == nil {
		b.subPart = map[uint32][]float32{}
	}
	var want [subwordBuckets]bool
	for h := range missing {
		b.subPart[h] = nil
		want[h] = true
	}
	buf := make([]float32, b.dim)
	var hs []uint32
	var starts []int
	for r, w := range b.vocab {
		var wv []float32
		hs, starts = appendNgramHashes(hs[:0], starts, w)
		for _, h := range hs {
			if !want[h] {
				continue
			}
			if wv == nil {
				wv = b.wordRow(r, buf)
			}
			row := b.subPart[h]
			if row == nil {
				row = make([]float32, b.dim)
				b.subPart[h] = row
			}
			axpy(1, wv, row)
		}
	}
	for h := range missing {
		if row := b.subPart[h]; row != nil {
			Normalize(row)
		}
	}
}

// buildSubwords fills the n-gram buckets from the vocabulary: each bucket
// is the normalised sum of the vectors of the words having an n-gram in
// it. The caller holds subMu.
func (b *Builtin) buildSubwords() {
	b.sub = make([]float32, subwordBuckets*b.dim)
	buf := make([]float32, b.dim)
	var hs []uint32
	var starts []int
	for r, w := range b.vocab {
		wv := b.wordRow(r, buf)
		hs, starts = appendNgramHashes(hs[:0], starts, w)
		for _, h := range hs {
			axpy(1, wv, b.sub[int(h)*b.dim:(int(h)+1)*b.dim])
		}
	}
	for h := 0; h < subwordBuckets; h++ {
		Normalize(b.sub[h*b.dim : (h+1)*b.dim])
	}
}

// ngramHashes returns the buckets of the character n-grams (n = 3..5) of
// "<w>" (FNV-1a of the n-gram's UTF-8 bytes, modulo subwordBuckets), as
// fastText forms subwords (Bojanowski et al. 2017): all 3-grams from the
// left, then all 4-grams, then all 5-grams.
func ngramHashes(w string) []uint32 {
	out, _ := appendNgramHashes(nil, nil, w)
	return out
}

// appendNgramHashes appends ngramHashes(w) to out, in the same order,
// without building "<w>": starts is a reused buffer for the byte offsets
// of its runes (returned grown, with out, for the next call). A pass over
// a vocabulary with reused buffers allocates nothing per word.
func appendNgramHashes(out []uint32, starts []int, w string) ([]uint32, []int) {
	// The bytes of "<w>": '<' at 0, w[k-1] at k, '>' at len(w)+1.
	starts = append(starts[:0], 0)
	for i := range w {
		starts = append(starts, i+1)
	}
	starts = append(starts, len(w)+1, len(w)+2)
	runes := len(starts) - 1
	for n := 3; n <= 5; n++ {
		for i := 0; i+n <= runes; i++ {
			h := uint32(2166136261)
			for k := starts[i]; k < starts[i+n]; k++ {
				var c byte
				switch {
				case k == 0:
					c = '<'
				case k == len(w)+1:
					c = '>'
				default:
					c = w[k-1]
				}
				h = (h ^ uint32(c)) * 16777619
			}
			out = append(out, h%subwordBuckets)
		}
	}
	return out, starts
}

// Normalize scales v to unit L2 norm in place; a zero vector stays zero.
func Normalize(v []float32) {
	n := norm(v)
	if n == 0 {
		return
	}
	inv := float32(1 / n)
	for i := range v {
		v[i] *= inv
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// axpy adds a·x to y (y[i] += a·x[i], the product rounded before the
// sum; x and y of one length, not overlapping). For a = 1 the sum is
// vek32's kernel, AVX2 where the CPU has it (the same float32 additions:
// TestAddScaledSameAsAxpy).
func axpy(a float32, x, y []float32) {
	if a == 1 {
		vek32.Add_Inplace(y, x)
		return
	}
	for i := range x {
		y[i] += a * x[i]
	}
}

// addScaled is axpy through tmp (len(x) values) with vek32's kernels
// for any a: a product pass, then a sum pass, so the same float32
// operations in the same order give the same bits
// (TestAddScaledSameAsAxpy). Summing word vectors was a quarter of a
// batch's embedding CPU (pprof, docs/benchmarks.md).
func addScaled(a float32, x, y, tmp []float32) {
	if a == 1 {
		axpy(1, x, y)
		return
	}
	vek32.Add_Inplace(y, vek32.MulNumber_Into(tmp[:len(x)], x, a))
}
