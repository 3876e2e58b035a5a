package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/index/bm25"
	"github.com/gloss-dev/gloss/memory"
)

// bm25Depth is the number of hits the fused search asks the text ranker
// for at its default limit of 20 (max(2·limit, 40)).
const bm25Depth = 40

// bm25Main is `glossbench bm25 --repo DIR [--n N] [--queries Q]
// [--words uniform,zipf]`: the cost of the full-text ranker alone, in
// process, for memories generated with each word source. For each, it
// generates N memories as gen does (seed 1), makes each the document
// gloss indexes (memory.SearchDocument: the title remember derives, the
// body, tags, type, the anchor's path and the anchored lines read from
// the checkout as its code; no SCIP symbol, as nothing is indexed),
// builds a Bluge index of them in a temporary directory, and runs Q
// retrieval queries drawn with the same word source (queriesWith, seed
// 7) through memory.TextQuery at the fused search's depth (40 hits). It
// prints one row per word source: build seconds, CPU milliseconds per
// query (this process's getrusage, after a GC) and wall p50/p95. A
// second row per word source (bm25mem_…) runs the same queries through
// the in-memory BM25 index the daemon ranks with (index/bm25, loaded from
// the Bluge index by index.FullText.LoadBM25, MaxScore pruning): load
// seconds, Go heap growth, CPU per query, p50/p95, and its agreement with
// Bluge: queries whose hit ids are the same in the same order, the same
// as a set, whose scores are the same position by position (to 1e-12
// relative: lists that differ only in the order or the cut of tied
// documents), and the largest relative score difference of a document
// both return.
//
// With --index DIR, DIR (a copy of a gloss home's projects/ID/bluge: it
// is opened for writing) is used as the Bluge index instead of generated
// memories; queries are drawn with the uniform word source.
func bm25Main(args []string) int {
	fs := flag.NewFlagSet("bm25", flag.ContinueOnError)
	repo := fs.String("repo", "", "checkout (required)")
	n := fs.Int("n", 100000, "memories")
	nq := fs.Int("queries", 150, "queries")
	words := fs.String("words", "uniform,zipf", "word sources, comma-separated")
	dir := fs.String("index", "", "an existing memory full-text index (a copy) instead of generated memories")
	if err := fs.Parse(args); err != nil || *repo == "" {
		fmt.Fprintln(os.Stderr, "usage: glossbench bm25 --repo DIR [--n N] [--queries Q] [--words uniform,zipf] [--index BLUGE-DIR]")
		return 2
	}
	var err error
	if *dir != "" {
		err = runBM25Index(context.Background(), *repo, *dir, *nq)
	} else {
		err = runBM25(context.Background(), *repo, *n, *nq, strings.Split(*words, ","))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "glossbench bm25:", err)
		return 1
	}
	return 0
}

func runBM25(ctx context.Context, repo string, n, nq int, sources []string) error {
	ss, err := sites(repo)
	if err != nil {
		return err
	}
	for _, name := range sources {
		words := wordsNamed(name, ss)
		docs, err := bm25Docs(repo, generateWith(ss, n, 1, words))
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "glossbench-bm25-")
		if err != nil {
			return err
		}
		err = bm25Run(ctx, dir, name, docs, queriesWith(ss, nq, 7, words))
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
	}
	return nil
}

// bm25Run indexes docs in dir and times qs; it emits one row.
func bm25Run(ctx context.Context, dir, words string, docs []index.Doc, qs []benchQuery) error {
	load := loadAvg()
	start := time.Now()
	ft, _, err := index.OpenFullText(dir, "bench")
	if err != nil {
		return err
	}
	defer ft.Close()
	if err := ft.Rebuild(docs, 1); err != nil {
		return err
	}
	return bm25Compare(ctx, ft, words, len(docs), time.Since(start).Seconds(), qs, load)
}

// runBM25Index runs bm25Compare on the existing index in dir.
func runBM25Index(ctx context.Context, repo, dir string, nq int) error {
	ss, err := sites(repo)
	if err != nil {
		return err
	}
	schema, err := os.ReadFile(filepath.Join(dir, "gloss-schema"))
	if err != nil {
		return fmt.Errorf("%s is not a gloss full-text index: %w", dir, err)
	}
	load := loadAvg()
	ft, ok, err := index.OpenFullText(dir, strings.TrimSpace(string(schema)))
	if err != nil {
		return err
	}
	defer ft.Close()
	if !ok {
		return fmt.Errorf("%s could not be opened", dir)
	}
	n, err := ft.Count()
	if err != nil {
		return err
	}
	return bm25Compare(ctx, ft, "index", int(n), 0, queriesWith(ss, nq, 7, wordsNamed("uniform", ss)), load)
}

// bm25Compare times qs on ft (Bluge) and on the in-memory index loaded
// from it; it emits one row for each.
func bm25Compare(ctx context.Context, ft *index.FullText, words string, docs int, build float64, qs []benchQuery, load any) error {
	runtime.GC()
	var wall []float64
	hits := 0
	var blugeRes [][]index.Scored
	cpu0 := selfCPU()
	for _, q := range qs {
		t := time.Now()
		res, err := ft.Search(ctx, memory.TextQuery(q.Text, bm25Depth))
		if err != nil {
			return err
		}
		hits += len(res)
		blugeRes = append(blugeRes, res)
		wall = append(wall, float64(time.Since(t).Microseconds())/1000)
	}
	r := latencyRow("bm25_"+words, wall, nil)
	r["cpu_ms_per_query"] = round((selfCPU()-cpu0)*1000/float64(len(qs)), 2)
	r["memories"], r["build_seconds"], r["mean_hits"], r["load"] = docs, round(build, 1), round(float64(hits)/float64(len(qs)), 1), load
	emit(r)

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, start := selfCPU(), time.Now()
	names := make([]string, 0, len(memory.TextQuery("", 0).Fields))
	for name := range memory.TextQuery("", 0).Fields {
		names = append(names, name)
	}
	x, err := ft.LoadBM25(ctx, names)
	if err != nil {
		return err
	}
	loadWall, loadCPU := time.Since(start).Seconds(), selfCPU()-cpu0
	runtime.GC()
	runtime.ReadMemStats(&after)
	wall = wall[:0]
	same, sameSet, sameScores, maxDiff := 0, 0, 0, 0.0
	cpu0 = selfCPU()
	var got [][]bm25.Hit
	for _, q := range qs {
		t := time.Now()
		got = append(got, x.Search(index.BM25Clauses(memory.TextQuery(q.Text, bm25Depth)), bm25Depth, true))
		wall = append(wall, float64(time.Since(t).Microseconds())/1000)
	}
	cpu := selfCPU() - cpu0
	for i, res := range got {
		inOrder, set := len(res) == len(blugeRes[i]), map[string]float64{}
		for j, s := range blugeRes[i] {
			set[s.ID] = s.Score
			if inOrder && res[j].ID != s.ID {
				inOrder = false
			}
		}
		inSet := len(res) == len(blugeRes[i])
		for _, h := range res {
			s, ok := set[h.ID]
			if !ok {
				inSet = false
				continue
			}
			maxDiff = max(maxDiff, math.Abs(h.Score-s)/max(math.Abs(s), 1e-300))
		}
		if inOrder {
			same++
		}
		scores := len(res) == len(blugeRes[i]) // position by position, to rounding
		for j := 0; scores && j < len(res); j++ {
			scores = math.Abs(res[j].Score-blugeRes[i][j].Score) <= 1e-12*math.Abs(blugeRes[i][j].Score)
		}
		if scores {
			sameScores++
		}
		if inSet {
			sameSet++
		}
	}
	r = latencyRow("bm25mem_"+words, wall, nil)
	r["cpu_ms_per_query"] = round(cpu*1000/float64(len(qs)), 3)
	r["load_seconds"], r["load_cpu_seconds"] = round(loadWall, 2), round(loadCPU, 2)
	r["heap_mib"] = round(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), 1)
	r["same_order"], r["same_set"], r["same_scores"], r["max_rel_score_diff"] = same, sameSet, sameScores, maxDiff
	r["memories"], r["load"] = x.Len(), loadAvg()
	emit(r)
	return nil
}

// bm25Docs turns generated `remember --batch` lines into the full-text
// documents of the memories they would make.
func bm25Docs(repo string, lines [][]byte) ([]index.Doc, error) {
	files := map[string][][]byte{}
	docs := make([]index.Doc, 0, len(lines))
	for i, l := range lines {
		var in struct {
			Text, At, Type string
			Tags           []string
		}
		if err := json.Unmarshal(l, &in); err != nil {
			return nil, err
		}
		p, span, _ := strings.Cut(in.At, ":")
		a, b, _ := strings.Cut(span, "-")
		first, _ := strconv.Atoi(a)
		last, _ := strconv.Atoi(b)
		src, ok := files[p]
		if !ok {
			data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(p)))
			if err != nil {
				return nil, err
			}
			src = bytes.Split(data, []byte("\n"))
			files[p] = src
		}
		code := ""
		if first >= 1 && first <= last && last <= len(src) {
			code = string(bytes.Join(src[first-1:last], []byte("\n")))
		}
		m := &memory.Memory{ID: fmt.Sprintf("%08d", i), Type: in.Type, Title: memory.DeriveTitle(in.Text), Body: in.Text, Tags: in.Tags,
			Anchors: []memory.Anchor{{Path: p, Snapshot: code}}}
		docs = append(docs, memory.SearchDocument(m))
	}
	return docs, nil
}
