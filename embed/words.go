package embed

import (
	"strings"
	"sync"
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
// maxCachedStems words: a map under a read-write lock, which costs less
// per lookup than a sync.Map (no interface conversion of the key, no
// allocation), read by several goroutines during training.
var stems = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const maxCachedStems = 200_000

func stem(w string) string {
	stems.RLock()
	s, ok := stems.m[w]
	stems.RUnlock()
	if ok {
		return s
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	s = env.Current()
	stems.Lock()
	if len(stems.m) < maxCachedStems {
		stems.m[strings.Clone(w)] = s // not the text w may be a slice of
	}
	stems.Unlock()
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
