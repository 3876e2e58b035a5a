package embed

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/internal/ident"
)

// appendWords splits fields as strings.Fields does: the words of random
// texts mixing identifiers, ASCII and Unicode white space, punctuation
// and non-ASCII letters are Words' of before (strings.Fields of the
// split text, each field's word).
func TestAppendWordsAsFields(t *testing.T) {
	parts := []string{"maxRetryCount", "the", "HTTPServer", " ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "café", "Ünïcode", "x", "42", "snake_case", "a.b", "(", "retries", "—", "日本語", "\r\n", "  "}
	rng := rand.New(rand.NewSource(3))
	for range 2000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		text := b.String()
		var want []string
		for _, f := range strings.Fields(ident.Split(text)) {
			if s := word(f); s != "" {
				want = append(want, s)
			}
		}
		if got := appendWords(nil, text); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", text, got, want)
		}
	}
}
