package embed

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blugelabs/bluge/analysis/lang/en"

	"github.com/gloss-dev/gloss/internal/ident"
)

// stopWords is the Snowball English stop list (as in the full-text
// index), so that "the" or "is" carry no meaning in a vector either.
var stopWords = en.StopWords()

// maxWordLen bounds a word; longer runs (hashes, base64) are dropped.
const maxWordLen = 40

// Words returns the words of text as the built-in model sees them:
// identifiers split (internal/ident.Split: "maxRetryCount" → "max retry
// count"), lower case, English stop words and tokens of one character
// or of digits only dropped, each word reduced to its Snowball (Porter 2)
// English stem ("retries" → "retri", "capped" → "cap"). The result is
// empty for text without words.
func Words(text string) []string {
	fields := strings.Fields(ident.Split(text))
	out := fields[:0]
	for _, f := range fields {
		if len(f) < 2 || len(f) > maxWordLen || stopWords[f] || allDigits(f) {
			continue
		}
		s := stem(f)
		if len(s) < 2 || stopWords[s] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// stems caches stem results (identifiers repeat a lot), up to
// maxCachedStems words.
var (
	stems      sync.Map
	stemsCount atomic.Int64
)

const maxCachedStems = 200_000

func stem(w string) string {
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	s := env.Current()
	if stemsCount.Add(1) <= maxCachedStems {
		stems.Store(w, s)
	}
	return s
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
