package index

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/blugelabs/bluge/analysis"
	"github.com/blugelabs/bluge/analysis/lang/en"
)

// sameAnalysis returns "" when got and want hold the same tokens (Term
// bytes, Start, End, PositionIncr, Type, KeyWord), else the first
// difference.
func sameAnalysis(got, want analysis.TokenStream) string {
	if len(got) != len(want) {
		return "token count"
	}
	for i := range got {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Term, w.Term) || g.Start != w.Start || g.End != w.End || g.PositionIncr != w.PositionIncr || g.Type != w.Type || g.KeyWord != w.KeyWord {
			return "token " + g.String() + ", want " + w.String()
		}
	}
	return ""
}

// cloneTokens copies the tokens and their terms of ts.
func cloneTokens(ts analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, len(ts))
	for i, t := range ts {
		c := *t
		c.Term = bytes.Clone(t.Term)
		out[i] = &c
	}
	return out
}

// TestEnglishSameAsBluge compares the English analyzer (ASCII tokenizer,
// filters memoized by term) with bluge's (en.NewAnalyzer) on every .go and .md
// file of this repository, each line and each file with its non-ASCII
// bytes replaced, every text twice (the second time from the memo), and
// checks that no later analysis changes the terms an earlier one
// returned (stems are shared between tokens).
func TestEnglishSameAsBluge(t *testing.T) {
	ours, theirs := newEnglish(), en.NewAnalyzer()
	var texts [][]byte
	for _, c := range asciiTokenizerCases {
		texts = append(texts, []byte("The cats' running, "+c+" RETRIES capped; organizational generously"))
	}
	eachRepoFile(t, "..", func(_ string, data []byte) {
		texts = append(texts, data, asciiOnly(data, ' '))
		for line := range bytes.Lines(data) {
			texts = append(texts, line)
		}
	})
	type kept struct {
		got, copy analysis.TokenStream
	}
	var earlier []kept
	for round := 0; round < 2; round++ {
		for _, text := range texts {
			got := ours.Analyze(bytes.Clone(text))
			want := theirs.Analyze(bytes.Clone(text))
			if d := sameAnalysis(got, want); d != "" {
				t.Fatalf("round %d: %q: %s", round, truncate(text, 200), d)
			}
			if len(earlier) < 5000 {
				earlier = append(earlier, kept{got, cloneTokens(got)})
			}
		}
	}
	for _, k := range earlier {
		if d := sameAnalysis(k.got, k.copy); d != "" {
			t.Fatalf("a later analysis changed an earlier one's terms: %s", d)
		}
	}
}

// A full termMemo is emptied and goes on answering as bluge's analyzer;
// tokens the chain removes (stop words, runs of them) pass their
// position increments on, and a possessive alone leaves an empty term,
// from the memo as the first time.
func TestTermMemoFullAndRemoved(t *testing.T) {
	ours, theirs := newEnglish(), en.NewAnalyzer()
	memo := ours.TokenFilters[0].(*termMemo)
	for i := range maxTermMemo {
		memo.terms[fmt.Sprintf("filler%d", i)] = memoTerm{term: []byte("x"), str: "x"}
	}
	for round := range 2 {
		for _, text := range []string{"the cat's toys and the THE of", "'s ’s 's", "a an the", "Running ran runs the runner's"} {
			got := ours.Analyze([]byte(text))
			want := theirs.Analyze([]byte(text))
			if d := sameAnalysis(got, want); d != "" {
				t.Fatalf("round %d: %q: %s", round, text, d)
			}
		}
	}
	if n := len(memo.terms); n >= maxTermMemo || n == 0 {
		t.Fatalf("the memo holds %d terms after it filled", n)
	}
}

// analyzeStrings returns analyze's tokens, each with its term as a string
// in strs, from a cold memo and then from a warm one, on every .go and
// .md file of this repository and each of their lines.
func TestAnalyzeStringsSameAsTerms(t *testing.T) {
	var texts [][]byte
	eachRepoFile(t, "..", func(_ string, data []byte) {
		texts = append(texts, data)
		for line := range bytes.Lines(data) {
			texts = append(texts, line)
		}
	})
	englishMemo.mu.Lock()
	englishMemo.terms = map[string]memoTerm{} // cold
	englishMemo.mu.Unlock()
	for round := range 2 {
		for _, text := range texts {
			buf := tokenBufs.Get().(*tokenBuf)
			got := cloneTokens(buf.analyzeStrings(bytes.Clone(text))) // first: the cold memo learns through it
			strs := slices.Clone(buf.strs)
			buf.empty()
			want := buf.analyze(bytes.Clone(text))
			if d := sameAnalysis(got, want); d != "" {
				t.Fatalf("round %d: %q: %s", round, truncate(text, 200), d)
			}
			if len(strs) != len(got) {
				t.Fatalf("round %d: %d strings for %d tokens", round, len(strs), len(got))
			}
			for i, tok := range got {
				if strs[i] != string(tok.Term) {
					t.Fatalf("round %d: token %d: string %q, term %q", round, i, strs[i], tok.Term)
				}
			}
			buf.release(0)
		}
	}
}
