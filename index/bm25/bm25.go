// Package bm25 is an in-memory inverted index of documents with named
// fields, ranked by Okapi BM25 (Robertson and Zaragoza, "The Probabilistic
// Relevance Framework: BM25 and Beyond", 2009) with exactly the arithmetic
// of Bluge v0.2.2 (search/similarity/bm25.go, k1 = 1.2, b = 0.75), and
// answering top-k queries with MaxScore pruning (Turtle and Flood,
// "Query evaluation: strategies and optimizations", IP&M 31(6), 1995):
// a document that only the query terms of low score upper bounds contain
// is never scored once those bounds sum to less than the k-th best score
// so far.
//
// Bluge scores every posting of every query term (it has no top-k
// pruning); this index is what gloss's daemon ranks memories with once
// warmed (issue #15). It holds analyzed terms only: analysis (the English
// analyzer of package index) is the caller's.
//
// Statistics follow Bluge's: N (documents with the field) and the
// field's total length keep counting a deleted or replaced document until
// a compaction drops it, as Bluge's count it until a segment merge does;
// a term's document frequency counts live documents only, as Bluge's
// (ice PostingsList.Count). An index loaded from Bluge (Builder.Stats)
// starts from Bluge's own statistics,
// which for merged segments are not the textbook ones (ice v1.0.0
// merge.go: a field's total length becomes a running sum of document
// frequencies, and a field with no token is no longer counted as
// present), so that the ranking is Bluge's on the index it was loaded
// from; writes after that count as in a new Bluge segment. Compact
// recomputes every statistic from the live documents, as a Bluge index
// built anew from them has.
package bm25

import (
	"container/heap"
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// Bluge's BM25 parameters (search/similarity/bm25.go: defaultK1, defaultB).
const (
	K1 = 1.2
	B  = 0.75
)

// Field is one analyzed field of a document: its length in tokens (as
// Bluge counts it: every token the analyzer returned, repeats included)
// and each of its distinct terms with its frequency in it (any order; a
// term listed twice, or with a frequency ≤ 0, is not: Terms is a set).
type Field struct {
	Name   string
	Length int
	Terms  []TermFreq
}

// TermFreq is a term of a Field and its frequency (occurrences) in it.
type TermFreq struct {
	Term string
	TF   int
}

// FieldOf returns the Field name of length tokens with the term
// frequencies of freqs (a convenience for tests and callers counting in
// a map).
func FieldOf(name string, length int, freqs map[string]int) Field {
	f := Field{Name: name, Length: length, Terms: make([]TermFreq, 0, len(freqs))}
	for t, tf := range freqs {
		f.Terms = append(f.Terms, TermFreq{t, tf})
	}
	return f
}

// Clause is one weighted query term: Term in Field, its score multiplied
// by Weight (Bluge's boost; see Index.Search for how a match query's
// boosts combine).
type Clause struct {
	Field  string
	Term   string
	Weight float64
}

// Hit is one result: a document id and its BM25 score (higher is better).
type Hit struct {
	ID    string
	Score float64
}

// Index is the inverted index. Documents get increasing numbers as they
// are put, so every posting list stays sorted by appending; a document put
// again or deleted leaves a tombstone, and the lists are compacted when
// tombstones outnumber half the live documents. Methods are safe for
// concurrent use (searches share a read lock).
type Index struct {
	mu     sync.RWMutex
	fields map[string]*field
	ids    []string          // document number -> id; "" once deleted
	num    map[string]uint32 // id -> live document number
	dead   int               // tombstones in ids
}

// field is one field's part of the index.
type field struct {
	lens   []uint32 // document number -> field length (0: absent or empty)
	has    []bool   // document number -> document has the field
	docs   int      // N: documents with the field (deleted ones too, until compaction)
	sumLen uint64   // their total length
	terms  map[string]*postings
	// statsSet: docs and sumLen were set by Builder.Stats.
	statsSet bool
	// maxLen bounds every length in lens (deleted documents' too).
	maxLen uint32
	// norms is the table of NormInverse per field length for the
	// field's average length when it was built (normsFor); searches
	// build it under the read lock, so it is swapped atomically.
	norms atomic.Pointer[normTable]
}

// normTable holds NormInverse(l, avgLen) for every length l < len(inv).
type normTable struct {
	avgLen float64
	inv    []float64
}

// maxNormTable bounds a norm table's length: longer fields (rare) have
// their norm computed per posting.
const maxNormTable = 1 << 14

// normsFor returns f's norm table for average length avg, building it
// when f's table is of another average (a write changed the statistics)
// or none was built. The caller holds the index's lock (read or write).
func (f *field) normsFor(avg float64) []float64 {
	if t := f.norms.Load(); t != nil && math.Float64bits(t.avgLen) == math.Float64bits(avg) && len(t.inv) > int(min(f.maxLen, maxNormTable-1)) {
		return t.inv
	}
	t := &normTable{avgLen: avg, inv: make([]float64, int(min(f.maxLen, maxNormTable-1))+1)}
	for l := range t.inv {
		t.inv[l] = NormInverse(uint32(l), avg)
	}
	f.norms.Store(t)
	return t.inv
}

// postings is one term's posting list in one field.
type postings struct {
	docs   []uint32 // document numbers, ascending
	tfs    []uint32 // term frequency per posting
	maxTF  uint32   // over every posting ever added (an upper bound)
	minLen uint32   // least field length of a posting ever added
}

// New returns an empty index.
func New() *Index {
	return &Index{fields: map[string]*field{}, num: map[string]uint32{}}
}

// Len returns the number of live documents.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.num)
}

// Put adds document id with fields, replacing a document of that id.
func (x *Index) Put(id string, fields []Field) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.put(id, fields)
}

// Delete removes the documents of ids; unknown ids are ignored.
func (x *Index) Delete(ids ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		x.remove(id)
	}
	x.maybeCompact()
}

// Apply puts docs (ids with their fields) and deletes deleted, under one
// lock: what one memory write changes.
func (x *Index) Apply(docs map[string][]Field, deleted []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids) // deterministic document numbers
	for _, id := range ids {
		x.put(id, docs[id])
	}
	for _, id := range deleted {
		x.remove(id)
	}
	x.maybeCompact()
}

func (x *Index) put(id string, fields []Field) {
	x.remove(id)
	n := uint32(len(x.ids))
	x.ids = append(x.ids, id)
	x.num[id] = n
	for _, fd := range fields {
		f := x.fields[fd.Name]
		if f == nil {
			f = &field{terms: map[string]*postings{}}
			x.fields[fd.Name] = f
		}
		f.grow(int(n) + 1)
		f.lens[n], f.has[n] = uint32(fd.Length), true
		f.maxLen = max(f.maxLen, uint32(fd.Length))
		f.docs++
		f.sumLen += uint64(fd.Length)
		for _, ttf := range fd.Terms {
			term, tf := ttf.Term, ttf.TF
			if tf <= 0 {
				continue
			}
			p := f.terms[term]
			if p == nil {
				p = &postings{minLen: math.MaxUint32}
				f.terms[term] = p
			}
			p.add(n, uint32(tf), uint32(fd.Length))
		}
	}
}

// add appends a posting of document n (the largest number so far).
func (p *postings) add(n, tf, length uint32) {
	p.docs = append(p.docs, n)
	p.tfs = append(p.tfs, tf)
	p.maxTF = max(p.maxTF, tf)
	p.minLen = min(p.minLen, length)
}

func (f *field) grow(n int) {
	for len(f.lens) < n {
		f.lens = append(f.lens, 0)
		f.has = append(f.has, false)
	}
}

// remove tombstones id's live document, if any.
func (x *Index) remove(id string) {
	n, ok := x.num[id]
	if !ok {
		return
	}
	delete(x.num, id)
	x.ids[n] = ""
	x.dead++ // its statistics stay until compaction, as in Bluge
}

// maybeCompact rewrites every posting list without tombstones, and
// renumbers the documents, once tombstones exceed half the live
// documents (and 1,024).
func (x *Index) maybeCompact() {
	if x.dead <= 1024 || x.dead <= len(x.num)/2 {
		return
	}
	x.compact()
}

// Compact drops deleted documents from every posting list and recomputes
// every statistic from the live documents.
func (x *Index) Compact() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.compact()
}

func (x *Index) compact() {
	renum := make([]uint32, len(x.ids))
	ids := make([]string, 0, len(x.num))
	for n, id := range x.ids {
		if id != "" {
			renum[n] = uint32(len(ids))
			ids = append(ids, id)
			x.num[id] = renum[n]
		}
	}
	for _, f := range x.fields {
		lens := make([]uint32, len(ids))
		has := make([]bool, len(ids))
		for n := range f.has {
			if n < len(x.ids) && x.ids[n] != "" {
				lens[renum[n]], has[renum[n]] = f.lens[n], f.has[n]
			}
		}
		f.lens, f.has = lens, has
		f.docs, f.sumLen, f.maxLen = 0, 0, 0
		for n := range has {
			if has[n] {
				f.docs++
				f.sumLen += uint64(lens[n])
				f.maxLen = max(f.maxLen, lens[n])
			}
		}
		for term, p := range f.terms {
			j := 0
			for i, d := range p.docs {
				if x.ids[d] != "" {
					p.docs[j], p.tfs[j] = renum[d], p.tfs[i]
					j++
				}
			}
			if j == 0 {
				delete(f.terms, term)
				continue
			}
			p.docs, p.tfs = p.docs[:j:j], p.tfs[:j:j]
		}
	}
	x.ids, x.dead = ids, 0
}

// liveDF returns the number of live postings of p: its length, or with
// tombstones (until the next compaction) a count over the list, which
// costs a pass over each query term's postings but no memory per
// document.
func (x *Index) liveDF(p *postings) int {
	if x.dead == 0 {
		return len(p.docs)
	}
	n := 0
	for _, d := range p.docs {
		if x.ids[d] != "" {
			n++
		}
	}
	return n
}

// Idf is Bluge v0.2.2's inverse document frequency, reproduced as written
// there (BM25Similarity.Idf): log(1 + (N − n) + 0.5/(n + 0.5)), with N the
// documents having the field and n those containing the term. (The text of
// its explanation, log(1 + (N − n + 0.5)/(n + 0.5)), is not what it
// computes; this is what Bluge ranks by.)
func Idf(docFreq, docCount uint64) float64 {
	return math.Log(1.0 + float64(docCount-docFreq) + 0.5/(float64(docFreq)+0.5))
}

// TermScore is Bluge v0.2.2's BM25 term score (BM25Scorer.Score) for a
// term of frequency tf in a field of length docLen (tokens), average
// field length avgLen, with weight = boost × idf:
// weight − weight/(1 + tf/(K1·(1 − B + B·docLen/avgLen))), computed as
// TermScoreNorm(weight, tf, NormInverse(docLen, avgLen)).
func TermScore(weight float64, tf, docLen uint32, avgLen float64) float64 {
	return TermScoreNorm(weight, tf, NormInverse(docLen, avgLen))
}

// NormInverse is the document-length part of Bluge v0.2.2's BM25 term
// score (BM25Scorer.Score's normInverse) for a field of length docLen
// (tokens) and average field length avgLen: 1/(K1·(1 − B + B·docLen/avgLen)).
// It depends on the field and the document only, not the term, so a
// search takes it from a table per field length (normsFor) rather than
// dividing twice per posting; the table holds these very values, so
// scores are the same to the last bit.
func NormInverse(docLen uint32, avgLen float64) float64 {
	return 1 / (K1 * ((1 - B) + B*float64(docLen)/avgLen))
}

// TermScoreNorm is TermScore given NormInverse(docLen, avgLen) as
// normInverse: weight − weight/(1 + tf·normInverse), Bluge v0.2.2's
// operations in its order.
func TermScoreNorm(weight float64, tf uint32, normInverse float64) float64 {
	return weight - weight/(1+float64(tf)*normInverse)
}

// cursor is one query term's posting list during a search.
type cursor struct {
	docs   []uint32 // the posting list's document numbers (postings.docs)
	tfs    []uint32 // and term frequencies
	i      int
	cur    uint32  // docs[i], math.MaxUint32 past the end
	weight float64 // clause weight × idf
	avgLen float64
	lens   []uint32  // document number -> field length (field.lens), or nil with plens
	plens  []uint32  // posting -> field length (a saved index's postings: Saved)
	norms  []float64 // NormInverse by field length for avgLen (field.normsFor)
	ub     float64   // score upper bound of any posting
	slot   int       // position in the query's clause order
	// src, for a saved index's list, decodes its blocks: docs, tfs and
	// plens are then the current block's (Saved).
	src *savedList
}

// at sets c to its posting i.
func (c *cursor) at(i int) {
	c.i = i
	if i < len(c.docs) {
		c.cur = c.docs[i]
	} else if c.src == nil || !c.src.load(c, c.src.blk+1) {
		c.cur = math.MaxUint32
	}
}

// seek advances c to its first posting of a document ≥ d (galloping,
// then binary search).
func (c *cursor) seek(d uint32) {
	docs := c.docs
	if c.cur >= d {
		return
	}
	if c.src != nil && c.docs[len(c.docs)-1] < d {
		// Not in the current block: skip to the block holding d.
		if !c.src.skipTo(c, d) {
			c.cur = math.MaxUint32
			return
		}
		if docs = c.docs; c.cur >= d {
			return
		}
	}
	lo, step := c.i, 1
	hi := lo + step
	for hi < len(docs) && docs[hi] < d {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi, len(docs))
	c.at(lo + sort.Search(hi-lo, func(k int) bool { return docs[lo+k] >= d }))
}

// score returns the term score of c's current posting.
func (c *cursor) score() float64 {
	var l uint32
	if c.plens != nil {
		l = c.plens[c.i]
	} else {
		l = c.lens[c.cur]
	}
	if int(l) < len(c.norms) {
		return TermScoreNorm(c.weight, c.tfs[c.i], c.norms[l])
	}
	return TermScore(c.weight, c.tfs[c.i], l, c.avgLen)
}

// Search returns the k documents of highest score for clauses (best
// first, ties by id), where a document's score is the sum over clauses
// of Weight × TermScore for the clause's term in its field. Clauses of
// the same field and term are merged, their weights added. Bluge's
// boolean "should" query of match queries, one per text and field with
// boost β, scores each of the match's terms with boost β and multiplies
// their sum by β again (query.go: MatchQuery.Searcher sets the boost on
// both): a caller reproducing it passes Weight = β² per analyzed query
// token. A document matching no clause is not returned. With prune
// false every posting is scored (the exhaustive evaluation, for tests).
func (x *Index) Search(clauses []Clause, k int, prune bool) []Hit {
	if k <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	order, merged := mergeClauses(clauses)
	var cs []cursor
	for _, kk := range order {
		f := x.fields[kk.field]
		if f == nil || f.docs == 0 {
			continue
		}
		p := f.terms[kk.term]
		if p == nil {
			continue
		}
		df := x.liveDF(p)
		if df == 0 {
			continue
		}
		avg := float64(f.sumLen) / float64(f.docs)
		w := merged[kk] * Idf(uint64(df), uint64(f.docs))
		c := cursor{docs: p.docs, tfs: p.tfs, weight: w, avgLen: avg, lens: f.lens, norms: f.normsFor(avg), slot: len(cs)}
		c.at(0)
		c.ub = TermScore(w, p.maxTF, p.minLen, avg)
		if w < 0 { // a negative weight: no useful bound
			c.ub = 0
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil
	}
	var dead func(uint32) bool
	if x.dead > 0 {
		dead = func(d uint32) bool { return x.ids[d] == "" }
	}
	return topK(cs, k, prune, dead, func(d uint32) string { return x.ids[d] })
}

// mergeClauses returns clauses' distinct (field, term) pairs in their
// first order and the sum of each one's weights.
func mergeClauses(clauses []Clause) ([]fieldTerm, map[fieldTerm]float64) {
	merged := map[fieldTerm]float64{}
	var order []fieldTerm
	for _, c := range clauses {
		kk := fieldTerm{c.Field, c.Term}
		if _, ok := merged[kk]; !ok {
			order = append(order, kk)
		}
		merged[kk] += c.Weight
	}
	return order, merged
}

// fieldTerm is one (field, term) pair of a query.
type fieldTerm struct{ field, term string }

// topK is the MaxScore evaluation of Search over the cursors cs (slot
// numbers 0..len(cs)−1 in clause order; cursors of disjoint documents
// may share a slot): the k best documents, ties by id. dead, when not
// nil, reports a tombstone, which is skipped; id returns a document's id.
func topK(cs []cursor, k int, prune bool, dead func(uint32) bool, id func(uint32) string) []Hit {
	// Ascending upper bounds; bound[i] = Σ ub of cs[:i+1].
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].ub < cs[j].ub })
	bound := make([]float64, len(cs))
	sum := 0.0
	for i := range cs {
		sum += cs[i].ub
		bound[i] = sum
	}
	const slack = 1 + 1e-9 // bounds summed in another order than scores
	// A document's score is summed in clause order (part), whatever the
	// pruning, so that it is the same to the last bit with or without.
	part := make([]float64, len(cs))
	top := &hitHeap{id: id}
	theta := math.Inf(-1) // the k-th best score once k are held
	essential := 0        // cs[:essential] alone cannot reach theta
	for {
		d := uint32(math.MaxUint32)
		for i := essential; i < len(cs); i++ {
			d = min(d, cs[i].cur)
		}
		if d == math.MaxUint32 {
			break
		}
		clear(part)
		s := 0.0
		for i := essential; i < len(cs); i++ {
			if c := &cs[i]; c.cur == d {
				part[c.slot] = c.score()
				s += part[c.slot]
				c.at(c.i + 1)
			}
		}
		if dead != nil && dead(d) {
			continue // tombstone
		}
		pruned := false
		for i := essential - 1; i >= 0; i-- {
			if prune && top.Len() == k && (s+bound[i])*slack < theta {
				pruned = true
				break
			}
			c := &cs[i]
			c.seek(d)
			if c.cur == d {
				part[c.slot] = c.score()
				s += part[c.slot]
			}
		}
		if pruned {
			continue
		}
		s = 0
		for _, v := range part {
			s += v
		}
		if top.Len() == k && s < top.c[0].score {
			continue // not better than the worst held, whatever its id
		}
		h := candidate{score: s, doc: d}
		if top.Len() < k {
			heap.Push(top, h)
		} else if top.better(&h, &top.c[0]) {
			top.c[0] = h
			heap.Fix(top, 0)
		} else {
			continue
		}
		if top.Len() == k {
			theta = top.c[0].score
			if prune {
				for essential < len(cs) && bound[essential]*slack < theta {
					essential++
				}
			}
		}
	}
	out := make([]Hit, top.Len())
	for i := len(out) - 1; i >= 0; i-- {
		c := heap.Pop(top).(candidate)
		out[i] = Hit{ID: top.idOf(&c), Score: c.score}
	}
	return out
}

// candidate is a document held in topK's heap: its number, its score,
// and its id once a tie with another candidate's score needed it (a
// saved index reads ids from its file: Saved.id).
type candidate struct {
	score float64
	doc   uint32
	known bool // id is set
	id    string
}

// hitHeap is a min-heap of candidates by rank (its root the worst held):
// higher score, then lower id.
type hitHeap struct {
	c  []candidate
	id func(uint32) string
}

// idOf returns c's id, looking it up once.
func (h *hitHeap) idOf(c *candidate) string {
	if !c.known {
		c.id, c.known = h.id(c.doc), true
	}
	return c.id
}

// better reports whether a ranks before b: higher score, then lower id.
func (h *hitHeap) better(a, b *candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return h.idOf(a) < h.idOf(b)
}

func (h *hitHeap) Len() int           { return len(h.c) }
func (h *hitHeap) Less(i, j int) bool { return h.better(&h.c[j], &h.c[i]) }
func (h *hitHeap) Swap(i, j int)      { h.c[i], h.c[j] = h.c[j], h.c[i] }
func (h *hitHeap) Push(v any)         { h.c = append(h.c, v.(candidate)) }
func (h *hitHeap) Pop() any {
	v := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	return v
}

// Builder fills an Index from another inverted index, term by term (the
// daemon loads the code-symbol index from Bluge on disk:
// index.FullText.LoadBM25).
type Builder struct {
	x *Index
}

// NewBuilder starts an Index of the documents ids, numbered by their
// position in ids; every document has every one of fields (possibly
// empty: length 0, as Bluge counts a field added with no tokens), which
// Stats may override.
func NewBuilder(ids []string, fields []string) *Builder {
	x := New()
	x.ids = ids
	for i, id := range ids {
		x.num[id] = uint32(i)
	}
	for _, name := range fields {
		f := &field{terms: map[string]*postings{}, lens: make([]uint32, len(ids)), has: make([]bool, len(ids)), docs: len(ids)}
		for i := range f.has {
			f.has[i] = true
		}
		x.fields[name] = f
	}
	return &Builder{x: x}
}

// Posting adds that document doc (a position in NewBuilder's ids) has
// term tf times in field, whose length in doc is length tokens. A term's
// postings must come in ascending doc order; field must be one of
// NewBuilder's fields (others are ignored).
func (b *Builder) Posting(field, term string, doc, tf, length uint32) {
	f := b.x.fields[field]
	if f == nil || int(doc) >= len(f.lens) {
		return
	}
	f.lens[doc] = length
	f.maxLen = max(f.maxLen, length)
	p := f.terms[term]
	if p == nil {
		p = &postings{minLen: math.MaxUint32}
		f.terms[term] = p
	}
	p.add(doc, tf, length)
}

// Stats sets field's statistics, N (documents with the field) and its
// total length in tokens, to another index's (Bluge's CollectionStats:
// DocumentCount, SumTotalTermFrequency) instead of those of the postings
// added.
func (b *Builder) Stats(field string, docs int, sumLen uint64) {
	if f := b.x.fields[field]; f != nil {
		f.docs, f.sumLen, f.statsSet = docs, sumLen, true
	}
}

// Index returns the index built; the Builder is not used again.
func (b *Builder) Index() *Index {
	for _, f := range b.x.fields {
		if f.statsSet {
			continue
		}
		f.sumLen = 0
		for _, l := range f.lens {
			f.sumLen += uint64(l)
		}
	}
	return b.x
}

// FieldStats returns field's statistics: N (the documents having it), the
// sum of their lengths in tokens (both counting deleted documents until
// the next compaction), and its number of distinct terms.
func (x *Index) FieldStats(name string) (docs int, sumLen uint64, terms int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	f := x.fields[name]
	if f == nil {
		return 0, 0, 0
	}
	return f.docs, f.sumLen, len(f.terms)
}
