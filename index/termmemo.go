package index

import (
	"sync"

	"github.com/blevesearch/snowballstem"
	snowball "github.com/blevesearch/snowballstem/english"
	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/en"
	"github.com/blugelabs/bluge/analysis/token"
)

// maxStemCache bounds the terms a stemCache holds; past it the cache is
// emptied (about 100 bytes per entry: at most about 20 MB).
const maxStemCache = 200_000

// stemCache is the English (Porter 2, snowball) stemming filter of
// bluge's analysis/lang/en (EnglishStemmerFilter) with a memo of each
// term's stem: memory texts and code repeat the same words, and the
// stemmer's cost (a string, a snowball Env and a copy per token) is paid
// once per distinct term. A token whose stem is itself keeps its Term; any
// other token's Term becomes the memo's copy of the stem, shared by every
// token of that term and never written (bluge and gloss only read
// terms). The output is the same term for term
// (TestEnglishSameAsBluge). Safe for concurrent use (bluge runs analysis
// on several goroutines).
type stemCache struct {
	mu    sync.RWMutex
	stems map[string][]byte // nil: the term is its own stem
}

func newStemCache() *stemCache { return &stemCache{stems: map[string][]byte{}} }

// Filter implements analysis.TokenFilter: each token's Term becomes its
// stem (the input bytes are not written).
func (c *stemCache) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, tok := range input {
		c.mu.RLock()
		st, ok := c.stems[string(tok.Term)]
		c.mu.RUnlock()
		if !ok {
			env := snowballstem.NewEnv(string(tok.Term))
			snowball.Stem(env)
			if s := env.Current(); s != string(tok.Term) {
				st = []byte(s)
				st = st[:len(st):len(st)] // an append copies
			}
			c.mu.Lock()
			if len(c.stems) >= maxStemCache {
				c.stems = map[string][]byte{}
			}
			c.stems[string(tok.Term)] = st
			c.mu.Unlock()
		}
		if st != nil {
			tok.Term = st
		}
	}
	return input
}

// newEnglish returns bluge's English analyzer (en.NewAnalyzer: Unicode
// word tokenizer, possessives, lower case, stop words, snowball stemming)
// with the stemming filter memoized (stemCache) and the tokenizer's fast
// path for ASCII input (asciiTokenizer), both of the same output.
func newEnglish() *analysis.Analyzer {
	return &analysis.Analyzer{
		Tokenizer: newASCIITokenizer(),
		TokenFilters: []analysis.TokenFilter{
			en.NewPossessiveFilter(),
			token.NewLowerCaseFilter(),
			en.StopWordsFilter(),
			newStemCache(),
		},
	}
}
