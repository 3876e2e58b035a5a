package index

import (
	"slices"
	"sync"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"
	blugeseg "github.com/blugelabs/bluge_segment_api"

	"github.com/gloss-dev/gloss/index/bm25"
)

// textField is the Bluge field of a document's text field: what
// bluge.NewTextField(name, value).WithAnalyzer(english) is (indexed, not
// stored, no term positions) and indexes the same terms, frequencies and
// length (TestTextFieldSameAsBluge), with fewer allocations: its tokens
// are analysed in a reused buffer (tokenBuf) instead of new ones, and its
// terms are a slice of (term, frequency) instead of bluge's map of
// analysis.TokenFreq, one allocation each. Bluge's segment builder reads
// a field through Length and EachTerm only (github.com/blugelabs/ice
// v1.0.0, new.go); the order EachTerm visits terms in is the order of
// their first occurrence (bluge's, of a map, is random).
type textField struct {
	*bluge.TermField // name, value, options, position gap, size
	length           int
	terms            []fieldTerm
}

var _ bluge.Field = (*textField)(nil)

// newTextField returns the text field name of value.
func newTextField(name, value string) *textField {
	return &textField{TermField: bluge.NewTextField(name, value).WithAnalyzer(analyzer())}
}

// fieldTerm is a term of a textField and its frequency: a
// segment.FieldTerm without locations.
type fieldTerm struct {
	term []byte
	freq int
}

// Term implements segment.FieldTerm.
func (t *fieldTerm) Term() []byte { return t.term }

// Frequency implements segment.FieldTerm.
func (t *fieldTerm) Frequency() int { return t.freq }

// EachLocation implements segment.FieldTerm: no locations are kept.
func (t *fieldTerm) EachLocation(blugeseg.VisitLocation) {}

// tokenBuf is the reused memory of analysing a textField: the tokens of
// tokenizeASCII, the map from term to its place in terms, and terms.
type tokenBuf struct {
	used  int // the tokens last written in toks and ptrs
	toks  []analysis.Token
	ptrs  analysis.TokenStream
	index map[string]int
	terms []fieldTerm
	// strs are the terms of the tokens analyzeStrings last returned, as
	// strings.
	strs []string
	// src is a field's text copied for analysis (BM25Fields): no token
	// refers to it once analyzeStrings returns (the memo's terms replace
	// the tokens' own), so the next field reuses it.
	src []byte
	// counted are the terms of a document's fields as BM25Fields counts
	// them, before they are copied out.
	counted []bm25.TermFreq
}

// maxPooledTokens bounds the tokens, and maxPooledTerms the distinct
// terms, a pooled tokenBuf keeps room for: a buffer grown past them by a
// long field is dropped (its map replaced), so that the pool does not
// hold the memory of the longest fields seen.
const (
	maxPooledTokens = 1 << 12
	maxPooledTerms  = 1 << 10
	maxPooledSrc    = 64 << 10 // bytes of tokenBuf.src
)

var tokenBufs = sync.Pool{New: func() any { return &tokenBuf{index: map[string]int{}} }}

// Analyze implements bluge.Field as (*bluge.TermField).Analyze does for
// a field without term positions: the English analyzer's tokens counted
// per term; the position returned is 0, as analysis.TokenFrequency
// returns it without term vectors.
func (f *textField) Analyze(startOffset int) int {
	buf := tokenBufs.Get().(*tokenBuf)
	tokens := buf.analyze(f.Value())
	f.length = len(tokens)
	for _, tok := range tokens {
		if i, ok := buf.index[string(tok.Term)]; ok {
			buf.terms[i].freq++
			continue
		}
		buf.index[string(tok.Term)] = len(buf.terms)
		buf.terms = append(buf.terms, fieldTerm{term: tok.Term, freq: 1})
	}
	f.terms = slices.Clone(buf.terms)
	buf.release(len(buf.terms))
	return 0
}

// analyze returns the English analyzer's tokens of input, made in b
// (tokenize, then english's filters); they are valid until b is emptied.
func (b *tokenBuf) analyze(input []byte) analysis.TokenStream {
	tokens := tokenize(input, b)
	for _, tf := range english.TokenFilters {
		tokens = tf.Filter(tokens)
	}
	return tokens
}

// analyzeStrings is analyze that also sets b.strs to the term of each
// token as a string, the memo's (termMemo.filterStrings): english's
// filters are one termMemo.
func (b *tokenBuf) analyzeStrings(input []byte) analysis.TokenStream {
	b.strs = b.strs[:0]
	return englishMemo.filterStrings(tokenize(input, b), &b.strs)
}

// empty clears b for another analysis: its term map and terms, and its
// tokens, so that no input is kept alive by the pool. A caller that
// deleted its keys from the map leaves it empty, and empty does not
// clear it: clearing a map costs its capacity, not its length (a map
// grown by one long field once, cleared for each short field after it,
// was 0.7 CPU-s of a +80,000 batch's analysis; pprof).
func (b *tokenBuf) empty() {
	if len(b.index) > 0 {
		clear(b.index)
	}
	clear(b.terms)
	b.terms = b.terms[:0]
	clear(b.strs)
	b.strs = b.strs[:0]
	clear(b.toks[:b.used])
	clear(b.ptrs[:b.used])
	b.used = 0
}

// release returns b, emptied, to the pool, unless it grew past
// maxPooledTokens tokens or an analysis put more than maxPooledTerms
// (terms: the most) distinct terms in its map: a cleared map keeps its
// size, so such a buffer is dropped.
func (b *tokenBuf) release(terms int) {
	if len(b.toks) > maxPooledTokens || terms > maxPooledTerms || cap(b.src) > maxPooledSrc || cap(b.counted) > maxPooledTokens {
		return
	}
	b.empty()
	tokenBufs.Put(b)
}

// Length implements segment.Field: the number of tokens, repeats
// included.
func (f *textField) Length() int { return f.length }

// EachTerm implements segment.Field.
func (f *textField) EachTerm(vt blugeseg.VisitTerm) {
	for i := range f.terms {
		vt(&f.terms[i])
	}
}

// AnalyzedTokenFrequencies implements bluge.Field (read by Bluge's
// composite fields only, which gloss does not use): the map
// analysis.TokenFrequency makes of the same tokens, positions aside.
func (f *textField) AnalyzedTokenFrequencies() analysis.TokenFrequencies {
	var tokens analysis.TokenStream
	for _, t := range f.terms {
		for range t.freq {
			tokens = append(tokens, &analysis.Token{Term: t.term, PositionIncr: 1})
		}
	}
	out, _ := analysis.TokenFrequency(tokens, false, 0)
	return out
}
