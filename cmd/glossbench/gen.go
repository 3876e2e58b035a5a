package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// site is one place of the checkout a synthetic memory can point at.
type site struct {
	path       string
	name, kind string
	doc        string
	first      int // 1-based first line of the definition (doc comment included)
	last       int // 1-based last line
	declLine   int // 1-based line of the name
}

// sites parses every indexed file of repo (as gloss does) and returns its
// definitions spanning at least one line, in path and line order.
func sites(repo string) ([]site, error) {
	walk, err := index.Walk(repo, 1<<20)
	if err != nil {
		return nil, err
	}
	ix := &index.Indexer{Root: repo, Project: index.NewProject(repo)}
	var mu sync.Mutex
	var out []site
	eachSource(repo, walk.Files, func(parsers map[*index.Language]*ts.Parser, c index.Candidate, src []byte) {
		f, err := ix.ParseSource(parsers, c.Lang, c.Path, src)
		if err != nil {
			return
		}
		var local []site
		for _, d := range f.Defs {
			local = append(local, site{path: c.Path, name: d.Name, kind: d.Kind, doc: d.Doc,
				first: d.DocLine + 1, last: d.Range.LastLine() + 1, declLine: d.NameRange.StartLine + 1})
		}
		f.Release()
		mu.Lock()
		out = append(out, local...)
		mu.Unlock()
	})
	ts.DrainArenaPools()
	// Files are parsed concurrently: order by every field so that two
	// runs (and so the queries drawn from these sites) agree; several
	// definitions may share a path and first line (a var or const group).
	slices.SortFunc(out, func(a, b site) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.first, b.first), cmp.Compare(a.declLine, b.declLine),
			cmp.Compare(a.name, b.name), cmp.Compare(a.kind, b.kind), cmp.Compare(a.last, b.last), cmp.Compare(a.doc, b.doc))
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("no definitions found in %s", repo)
	}
	return out, nil
}

var vocabulary = strings.Fields(`retry backoff timeout deadline cache eviction lock mutex race
goroutine channel buffer flush compaction snapshot replay checkpoint shard replica quorum leader
follower lease heartbeat scrape target label series sample chunk block index postings head wal
query engine parser lexer planner optimizer cardinality histogram counter gauge summary bucket
alert rule notifier silence inhibit receiver route template config reload signal shutdown drain
migration schema upgrade rollback compatibility deprecation flag feature experimental stable
allocation garbage pool arena slice map pointer copy clone alias escape inline benchmark profile
latency throughput memory disk network socket tls certificate token auth tenant quota limit burst
error panic recover wrap unwrap sentinel context cancel propagate trace span metric log debug`)

var reasons = []string{
	"because the upstream rate-limits bursts",
	"since a concurrent writer can observe a half-built state",
	"otherwise the caller leaks a goroutine on shutdown",
	"or the compaction reads a stale snapshot",
	"to keep allocations off the hot path",
	"because tests rely on the iteration order",
	"as the format is shared with older releases",
	"since the lock order is head before block",
}

// generate returns n JSON lines of `gloss remember --batch` anchored to
// the definitions of repo: about two thirds to whole definitions (their
// doc comment or first line through their last line: symbol anchors), the
// rest to one to five lines inside a definition (span anchors). Texts mix
// the definition's name, kind and doc words with a technical vocabulary;
// types and tags vary. The same seed gives the same lines.
func generate(repo string, n int, seed int64) ([][]byte, error) {
	ss, err := sites(repo)
	if err != nil {
		return nil, err
	}
	return generateFrom(ss, n, seed), nil
}

// generateFrom is generate over the definitions ss of a checkout.
func generateFrom(ss []site, n int, seed int64) [][]byte {
	return generateWith(ss, n, seed, uniformWords)
}

// generateWith is generateFrom drawing the vocabulary words of texts and
// tags from words (uniformWords, or zipfWords of the checkout).
func generateWith(ss []site, n int, seed int64, words wordSource) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	w := words(rng)
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		s := ss[rng.Intn(len(ss))]
		at := fmt.Sprintf("%s:%d-%d", s.path, s.first, s.last)
		if rng.Intn(3) == 0 && s.last > s.declLine+1 {
			a := s.declLine + 1 + rng.Intn(s.last-s.declLine-1)
			b := min(s.last-1, a+rng.Intn(5))
			if b < a {
				b = a
			}
			at = fmt.Sprintf("%s:%d-%d", s.path, a, b)
		}
		line := map[string]any{"text": text(rng, w, s, i), "at": at, "type": memory.Types[rng.Intn(len(memory.Types))]}
		if k := rng.Intn(3); k > 0 {
			tags := []string{path.Base(path.Dir(s.path))}
			if k == 2 {
				tags = append(tags, w())
			}
			line["tags"] = tags
		}
		data, _ := json.Marshal(line) // strings and string slices only
		out = append(out, data)
	}
	return out
}

func text(rng *rand.Rand, w func() string, s site, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s %s", s.name, w(), w(), reasons[rng.Intn(len(reasons))])
	if doc := strings.Fields(s.doc); len(doc) > 3 {
		k := rng.Intn(len(doc) - 2)
		fmt.Fprintf(&b, ". The %s says %q", s.kind, strings.Join(doc[k:min(len(doc), k+8)], " "))
	}
	fmt.Fprintf(&b, ".\n\nSee %s (note %d): check %s and %s before changing the %s.", path.Base(s.path), i, w(), w(), w())
	return b.String()
}

// genMain is `glossbench gen --repo DIR --n N [--seed S]`: it prints the
// synthetic `gloss remember --batch` lines the benchmark ingests.
func genMain(args []string) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	repo := fs.String("repo", "", "checkout")
	n := fs.Int("n", 1000, "number of memories")
	seed := fs.Int64("seed", 1, "seed")
	words := fs.String("words", "uniform", "vocabulary words: uniform (the ~100 words of gen.go, uniformly) or zipf (the checkout's comment words, Zipf-distributed)")
	if err := fs.Parse(args); err != nil || *repo == "" || (*words != "uniform" && *words != "zipf") {
		fmt.Fprintln(os.Stderr, "usage: glossbench gen --repo DIR --n N [--words uniform|zipf]")
		return 2
	}
	ss, err := sites(*repo)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	lines := generateWith(ss, *n, *seed, wordsNamed(*words, ss))
	for _, l := range lines {
		fmt.Println(string(l))
	}
	return 0
}
