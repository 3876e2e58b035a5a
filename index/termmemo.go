package index

import (
	"bytes"
	"slices"
	"sync"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/en"
	"github.com/blugelabs/bluge/analysis/token"
)

// maxTermMemo bounds the tokens a termMemo holds; past it the memo is
// emptied (about 70 bytes per entry: at most about 5 MB).
const maxTermMemo = 1 << 16

// termMemo is the token filters of the English analyzer (possessives,
// lower case, stop words, snowball stemming: en.NewAnalyzer's) memoized
// by the tokenizer's term: each of them maps one token's term to a term
// or, for the stop filter, removes the token, whatever the tokens around
// it, so the chain's answer for a term is the same at every occurrence.
// A known term's token takes the memo's copy of its final term, shared by
// every token of that term and never written (bluge and gloss only read
// terms); a removed token's position increment goes to the next kept one,
// as token.StopTokensFilter does. The output is the same token for token
// (TestEnglishSameAsBluge). The chain ran four passes, a map lookup, a
// lock and a stem per token: 2.6 CPU-s of a +80,000 memory batch
// (docs/benchmarks.md). Safe for concurrent use (bluge runs analysis on
// several goroutines): the memo is read under one read lock per stream.
type termMemo struct {
	chain []analysis.TokenFilter
	mu    sync.RWMutex
	terms map[string]memoTerm
}

// memoTerm is a memoized term: the final term as bytes (tokens' Term) and
// as a string (filterStrings), or removed (term nil).
type memoTerm struct {
	term []byte
	str  string
}

func newTermMemo(chain ...analysis.TokenFilter) *termMemo {
	return &termMemo{chain: chain, terms: map[string]memoTerm{}}
}

// Filter implements analysis.TokenFilter.
func (m *termMemo) Filter(input analysis.TokenStream) analysis.TokenStream {
	return m.filterStrings(input, nil)
}

// filterStrings is Filter that also appends, when strs is not nil, the
// final term of each kept token as a string to *strs (the memo's string,
// shared like its bytes), so that a caller that keys terms by string
// (BM25Fields) makes none: a string per distinct term of each field was
// a sixth of a +80,000 batch's allocations (docs/benchmarks.md).
func (m *termMemo) filterStrings(input analysis.TokenStream, strs *[]string) analysis.TokenStream {
	var misses []int
	// outs[i] is the string of input[i] while misses are learnt, in the
	// room of *strs (kept tokens' strings are then moved down in place).
	var outs []string
	base := 0
	if strs != nil {
		base = len(*strs)
		*strs = slices.Grow(*strs, len(input))[:base+len(input)]
		outs = (*strs)[base:]
	}
	m.mu.RLock()
	for i, tok := range input {
		out, ok := m.terms[string(tok.Term)]
		if !ok {
			misses = append(misses, i)
			continue
		}
		tok.Term = out.term
		if outs != nil {
			outs[i] = out.str
		}
	}
	m.mu.RUnlock()
	if len(misses) > 0 {
		m.learn(input, misses, outs)
	}
	var j, skipped int
	for i, tok := range input {
		if tok.Term == nil {
			skipped += tok.PositionIncr
			continue
		}
		tok.PositionIncr += skipped
		skipped = 0
		input[j] = tok
		if strs != nil {
			outs[j] = outs[i] // j ≤ i
		}
		j++
	}
	if strs != nil {
		clear(outs[j:])
		*strs = (*strs)[:base+j]
	}
	return input[:j]
}

// learn runs the chain on each token of input at misses alone, sets its
// term to the result (nil: removed), and its string in strs when strs
// is not nil, and remembers it.
func (m *termMemo) learn(input analysis.TokenStream, misses []int, strs []string) {
	keys := make([]string, len(misses))
	outs := make([]memoTerm, len(misses))
	for k, i := range misses {
		tok := input[i]
		keys[k] = string(tok.Term) // before a filter writes the term in place
		one := *tok
		stream := analysis.TokenStream{&one}
		for _, f := range m.chain {
			stream = f.Filter(stream)
		}
		if len(stream) == 1 {
			term := bytes.Clone(stream[0].Term) // not nil, even when empty
			if term == nil {
				term = []byte{}
			}
			outs[k] = memoTerm{term: term[:len(term):len(term)], str: string(term)}
		}
		tok.Term = outs[k].term
		if strs != nil {
			strs[i] = outs[k].str
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, key := range keys {
		if len(m.terms) >= maxTermMemo {
			m.terms = map[string]memoTerm{}
		}
		m.terms[key] = outs[k]
	}
}

// newEnglish returns bluge's English analyzer (en.NewAnalyzer: Unicode
// word tokenizer, possessives, lower case, stop words, snowball stemming)
// with the filters memoized by term (termMemo) and the tokenizer's fast
// path for ASCII input (asciiTokenizer), both of the same output.
func newEnglish() *analysis.Analyzer {
	return &analysis.Analyzer{
		Tokenizer: newASCIITokenizer(),
		TokenFilters: []analysis.TokenFilter{newTermMemo(
			en.NewPossessiveFilter(),
			token.NewLowerCaseFilter(),
			en.StopWordsFilter(),
			en.StemmerFilter(),
		)},
	}
}
