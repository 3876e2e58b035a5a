package main

import (
	"math/rand"
	"sort"
	"strings"
	"unicode"
)

// wordSource returns a function drawing one vocabulary word per call
// from rng.
type wordSource func(rng *rand.Rand) func() string

// uniformWords draws the ~100 words of vocabulary uniformly: a query word
// then matches about a tenth of all generated memories, far more than
// words of real notes do.
func uniformWords(rng *rand.Rand) func() string {
	return func() string { return vocabulary[rng.Intn(len(vocabulary))] }
}

// zipfS is the exponent of zipfWords: word frequencies of English text
// follow Zipf's law with s close to 1 (Zipf 1949; Piantadosi,
// "Zipf's word frequency law in natural language", Psychonomic Bulletin
// & Review 2014); math/rand.NewZipf needs s > 1.
const zipfS = 1.1

// zipfWords returns a wordSource over the words of the checkout's doc
// comments (letters only, at least 3 of them, lowercased, English stop
// words left out), ranked by how often the comments use them (ties by
// word), the word of rank k drawn with probability proportional to
// (1+k)^−zipfS (math/rand.Zipf with v = 1).
func zipfWords(ss []site) wordSource {
	counts := map[string]int{}
	for _, s := range ss {
		for _, f := range strings.FieldsFunc(strings.ToLower(s.doc), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(f) >= 3 && !stopWords[f] {
				counts[f]++
			}
		}
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	if len(words) < 2 {
		return uniformWords
	}
	return func(rng *rand.Rand) func() string {
		z := rand.NewZipf(rng, zipfS, 1, uint64(len(words)-1))
		return func() string { return words[z.Uint64()] }
	}
}

// wordsNamed returns the word source a --words flag names: "zipf"
// (zipfWords of ss), else uniformWords.
func wordsNamed(name string, ss []site) wordSource {
	if name == "zipf" {
		return zipfWords(ss)
	}
	return uniformWords
}

// stopWords are common English function words, left out of zipfWords'
// vocabulary as the full-text analyzer drops them from queries anyway.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out has him his how its may new now see two who did get let put say she too use that with have this will your from they know want been good much some time very when come here just like long make many more only over such take than them well were what which their there these those then into also each other would could should about after before being does doing done itself while where why whom because until between through during above below under again further once both few most own same nor off`) {
		m[w] = true
	}
	return m
}()
