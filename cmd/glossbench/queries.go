package main

import (
	"math/rand"
	"path"
	"strings"

	"github.com/gloss-dev/gloss/internal/ident"
)

// benchQuery is one query of the retrieval benchmark.
type benchQuery struct {
	Kind string // "identifier", "words" or "task"
	Text string
	File string // the file at hand (relative to the repository), for context
}

// queries returns n queries drawn, with seed, from the definitions of the
// checkout and the vocabulary of the synthetic memories (gen.go), in turn:
//
//	identifier  a definition name of the checkout ("ShortString")
//	words       two vocabulary words and a word of a definition's name
//	            or doc comment ("compaction snapshot series")
//	task        what an agent is asked to do, naming a definition by its
//	            words ("fix the flush timeout in short string")
//
// Tasks carry the definition's file as the file at hand (gloss context
// --files).
func queries(ss []site, n int, seed int64) []benchQuery {
	return queriesWith(ss, n, seed, uniformWords)
}

// queriesWith is queries drawing vocabulary words from words (the
// source the memories were generated with).
func queriesWith(ss []site, n int, seed int64, words wordSource) []benchQuery {
	rng := rand.New(rand.NewSource(seed))
	w := words(rng)
	verbs := []string{"fix", "change", "add", "remove", "speed up", "document"}
	out := make([]benchQuery, 0, n)
	for i := 0; i < n; i++ {
		s := ss[rng.Intn(len(ss))]
		switch i % 3 {
		case 0:
			out = append(out, benchQuery{Kind: "identifier", Text: s.name})
		case 1:
			extra := strings.ToLower(ident.Split(s.name))
			if doc := strings.Fields(s.doc); len(doc) > 0 {
				extra = strings.Trim(strings.ToLower(doc[rng.Intn(len(doc))]), ".,;:()`'\"")
			}
			if extra == "" {
				extra = w()
			}
			out = append(out, benchQuery{Kind: "words", Text: w() + " " + w() + " " + extra})
		default:
			text := verbs[rng.Intn(len(verbs))] + " the " + w() + " " + w() + " in " + strings.ToLower(ident.Split(s.name))
			out = append(out, benchQuery{Kind: "task", Text: text, File: path.Clean(s.path)})
		}
	}
	return out
}
