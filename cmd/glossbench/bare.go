package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
)

// bareResult is what bare-parse prints: files and bytes parsed and the
// time from the first read to the last parse, in seconds.
type bareResult struct {
	Files   int     `json:"files"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// The routes of bare-parse --route: gotreesitter's default parser
// (ts.NewParser: the compact parser core where it applies), the floor of
// issue #12's table; or the parser gloss indexes each language with
// (index.NewParser: the production route for Python, TypeScript, TSX and
// JavaScript), the floor of gloss's own work besides its parse.
const (
	routeDefault = "default"
	routeGloss   = "gloss"
)

// bareParseMain is `glossbench bare-parse --repo DIR [--route
// default|gloss]`: the floor indexing is compared with. It lists the
// files gloss indexes (index.Walk, the CLI's default 1 MiB size limit),
// reads each and parses it with gotreesitter on GOMAXPROCS goroutines,
// one parser per language and goroutine (of the route), takes each
// tree's root node and releases the tree, and extracts nothing. The root node is part of the floor: gotreesitter
// finishes a parse lazily, at the first Tree.RootNode (its result
// normalization: for TypeScript 0.11 of excalidraw's 3.2 CPU-s), which any
// use of the tree calls; without it the floor left that work to gloss
// alone (docs/benchmarks.md, session 25).
func bareParseMain(args []string) int {
	fs := flag.NewFlagSet("bare-parse", flag.ContinueOnError)
	repo := fs.String("repo", "", "checkout")
	max := fs.Int64("max-file-size", 1<<20, "skip files larger than this")
	route := fs.String("route", routeDefault, "parser: default (gotreesitter's NewParser) or gloss (index.NewParser, the route gloss indexes each language with)")
	if err := fs.Parse(args); err != nil || *repo == "" || *route != routeDefault && *route != routeGloss {
		fmt.Fprintln(os.Stderr, "usage: glossbench bare-parse --repo DIR [--route default|gloss]")
		return 2
	}
	start := time.Now()
	walk, err := index.Walk(*repo, *max)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var files, bytes atomic.Int64
	eachSource(*repo, walk.Files, func(parsers map[*index.Language]*ts.Parser, c index.Candidate, src []byte) {
		p := parsers[c.Lang]
		if p == nil {
			if *route == routeGloss {
				p = index.NewParser(c.Lang)
			} else {
				p = ts.NewParser(c.Lang.TS())
			}
			parsers[c.Lang] = p
		}
		tree, err := p.Parse(src)
		if err != nil {
			return
		}
		_ = tree.RootNode()
		tree.Release()
		files.Add(1)
		bytes.Add(int64(len(src)))
	})
	out, _ := json.Marshal(bareResult{Files: int(files.Load()), Bytes: bytes.Load(), Seconds: time.Since(start).Seconds()})
	fmt.Println(string(out))
	return 0
}

// eachSource calls fn on GOMAXPROCS workers for every candidate file of
// repo that reads and is source text (index.CheckContent), with the
// worker's own parsers (one per language, created by fn as needed), and
// returns when all are done. Unreadable and binary files are skipped.
func eachSource(repo string, cands []index.Candidate, fn func(parsers map[*index.Language]*ts.Parser, c index.Candidate, src []byte)) {
	jobs := make(chan index.Candidate)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parsers := map[*index.Language]*ts.Parser{}
			for c := range jobs {
				src, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(c.Path)))
				if err != nil || index.CheckContent(src) != "" {
					continue
				}
				fn(parsers, c, src)
			}
		}()
	}
	for _, c := range cands {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
}
