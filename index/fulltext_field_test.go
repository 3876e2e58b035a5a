package index

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/blugelabs/bluge"
	"github.com/blugelabs/bluge/analysis"
	blugeseg "github.com/blugelabs/bluge_segment_api"
)

// fieldTerms returns the terms f visits with their frequencies and no
// location, sorted, as one string.
func fieldTerms(f blugeseg.Field) string {
	var out []string
	f.EachTerm(func(t blugeseg.FieldTerm) {
		locs := 0
		t.EachLocation(func(blugeseg.Location) { locs++ })
		out = append(out, fmt.Sprintf("%q×%d/%d", t.Term(), t.Frequency(), locs))
	})
	sort.Strings(out)
	return strings.Join(out, " ")
}

// tokenFreqs is fieldTerms of a TokenFrequencies map, its keys checked.
func tokenFreqs(t *testing.T, tf analysis.TokenFrequencies) string {
	var out []string
	for k, v := range tf {
		if k != string(v.Term()) {
			t.Fatalf("key %q of term %q", k, v.Term())
		}
		out = append(out, fmt.Sprintf("%q×%d/%d", v.Term(), v.Frequency(), len(v.Locations)))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestTextFieldSameAsBluge compares textField with bluge's text field of
// the English analyzer on every .go and .md file of this repository
// (whole, by line, made ASCII) and the tokenizer cases: the same options,
// position returned, length, terms and frequencies (and token
// frequencies), analysed in turn so that buffers are reused, and no
// field changed by the analyses after it.
func TestTextFieldSameAsBluge(t *testing.T) {
	var texts []string
	for _, c := range asciiTokenizerCases {
		texts = append(texts, c, "The cats' running, "+c+" RETRIES retries capped; the café")
	}
	eachRepoFile(t, "..", func(_ string, data []byte) {
		texts = append(texts, string(data), string(asciiOnly(data, 'x')))
		for line := range bytes.Lines(data) {
			texts = append(texts, string(line))
		}
	})
	type kept struct {
		f    *textField
		want string
	}
	var earlier []kept
	for i, text := range texts {
		ours := newTextField("body", text)
		theirs := bluge.NewTextField("body", text).WithAnalyzer(analyzer())
		if ours.Index() != theirs.Index() || ours.Store() != theirs.Store() || ours.IndexDocValues() != theirs.IndexDocValues() ||
			ours.IncludeLocations() != theirs.IncludeLocations() || ours.PositionIncrementGap() != theirs.PositionIncrementGap() ||
			ours.Name() != theirs.Name() || !bytes.Equal(ours.Value(), theirs.Value()) || ours.Size() != theirs.Size() {
			t.Fatalf("%q: options differ", truncate([]byte(text), 100))
		}
		offset := i % 3 * 50
		if got, want := ours.Analyze(offset), theirs.Analyze(offset); got != want {
			t.Fatalf("%q: Analyze = %d, want %d", truncate([]byte(text), 100), got, want)
		}
		if ours.Length() != theirs.Length() {
			t.Fatalf("%q: Length = %d, want %d", truncate([]byte(text), 100), ours.Length(), theirs.Length())
		}
		want := fieldTerms(theirs)
		if got := fieldTerms(ours); got != want {
			t.Fatalf("%q: terms\n%s\nwant\n%s", truncate([]byte(text), 100), got, want)
		}
		if got, want := tokenFreqs(t, ours.AnalyzedTokenFrequencies()), tokenFreqs(t, theirs.AnalyzedTokenFrequencies()); got != want {
			t.Fatalf("%q: token frequencies\n%s\nwant\n%s", truncate([]byte(text), 100), got, want)
		}
		if len(earlier) < 5000 {
			earlier = append(earlier, kept{ours, want})
		}
	}
	for _, k := range earlier {
		if got := fieldTerms(k.f); got != k.want {
			t.Fatalf("a later analysis changed an earlier field's terms: %s, want %s", got, k.want)
		}
	}
}
