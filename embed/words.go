package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blugelabs/bluge/analysis/lang/en"

	"github.com/gloss-dev/gloss/internal/ident"
	"github.com/gloss-dev/gloss/internal/memo"
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
func Words(text string) []string { return appendWords(nil, text) }

// appendWords appends the Words of text to dst and returns it, without
// the slice of fields strings.Fields makes (EmbedText passes a pooled
// dst). Fields are split at white space as strings.Fields splits them
// (unicode.IsSpace).
func appendWords(dst []string, text string) []string {
	split := ident.Split(text)
	start := -1 // the start of the field being read, or -1
	for i := 0; i < len(split); {
		c := split[i]
		size, space := 1, false
		if c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(split[i:])
			space = unicode.IsSpace(r)
		}
		switch {
		case space && start >= 0:
			if s := word(split[start:i]); s != "" {
				dst = append(dst, s)
			}
			start = -1
		case !space && start < 0:
			start = i
		}
		i += size
	}
	if start >= 0 {
		if s := word(split[start:]); s != "" {
			dst = append(dst, s)
		}
	}
	return dst
}

// stems memoizes word by field, up to maxCachedStems fields (identifiers
// repeat a lot; internal/memo: a map under a read-write lock, which costs
// less per lookup than a sync.Map, read by several goroutines during
// training). One lookup answers what took two of the stop list and one of
// a memo of stems alone (pprof of a batch's embedding,
// docs/benchmarks.md).
var stems = memo.Map[string]{Max: maxCachedStems}

const maxCachedStems = 200_000

// word returns the word a field of Words stands for: its Snowball stem,
// or "" when the field or its stem is dropped (wordOf).
func word(f string) string {
	if len(f) > maxWordLen {
		return "" // not remembered: such runs rarely repeat
	}
	if s, ok := stems.Get(f); ok {
		return s
	}
	// Neither key nor stem may be the text f is a slice of: the memo
	// would keep each text alive (a stem that is the field itself is
	// a slice of its argument).
	f = strings.Clone(f)
	s := wordOf(f)
	stems.Put(f, s)
	return s
}

// wordOf is word without the memo: "" for a field shorter than 2 bytes
// or longer than maxWordLen, a stop word, digits only, or whose stem is
// shorter than 2 bytes or a stop word; else the stem.
func wordOf(f string) string {
	if len(f) < 2 || len(f) > maxWordLen || stopWords[f] || allDigits(f) {
		return ""
	}
	env := snowballstem.NewEnv(f)
	english.Stem(env)
	s := env.Current()
	if len(s) < 2 || stopWords[s] {
		return ""
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
