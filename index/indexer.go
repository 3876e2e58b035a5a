package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	ts "github.com/odvcencio/gotreesitter"
	"golang.org/x/sync/semaphore"
)

// Indexer keeps the symbol graph of one workspace in sync with its files.
type Indexer struct {
	// Root is the absolute workspace root.
	Root    string
	Store   *Store
	Project *Project
	// MaxFileSize in bytes; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
	// MaxParseBytes bounds the parse weight of the files the workers of a
	// run parse at once, in bytes: a file weighs its size in bytes plus
	// parseOverheadBytes (parseWeight), and a file that weighs more than
	// the bound is parsed alone; 0 means DefaultMaxParseBytes. Syntax
	// trees take ~200–400 bytes per source byte and each parse a
	// parser's tables and scratch besides, so this bounds the run's parse
	// memory whatever the number of cores, which Workers alone does not
	// (two large test files parsed together, 16 parsers on 16 cores).
	MaxParseBytes int64

	// stop is the cancellation flag of every parser ParseSource creates
	// (tree-sitter's cancellation flag: non-zero ends a parse at once).
	stop uint32 // read and written with sync/atomic

	flagMu sync.Mutex
	flags  map[*uint32]struct{} // flags of running parses and WithStop, set by Interrupt too

	sched scheduler // Prioritize, Foreground (schedule.go)

	// noGoFast makes index runs parse Go files with tree-sitter too
	// (tests compare both paths).
	noGoFast bool
}

// ErrInterrupted is returned by parses that Interrupt cut short.
var ErrInterrupted = errors.New("gloss: parse interrupted (the workspace is closing)")

// Interrupt ends every running and later parse of the indexer at once
// (ParseSource returns ErrInterrupted): the workspace is closing and no
// parse may hold up its shutdown. It cannot be undone.
func (ix *Indexer) Interrupt() {
	ix.flagMu.Lock()
	defer ix.flagMu.Unlock()
	atomic.StoreUint32(&ix.stop, stopInterrupt)
	for f := range ix.flags {
		atomic.StoreUint32(f, stopInterrupt)
	}
}

// WithStop makes stop (a tree-sitter cancellation flag: set it non-zero,
// with sync/atomic, to end the parse) the cancellation flag of the parser
// of lang in parsers, creating it if needed, until the returned restore is
// called: a caller cancels its own parses (an editor closed the document)
// without interrupting the indexer's. Interrupt sets stop too. A parse cut
// short by stop returns ErrInterrupted.
func (ix *Indexer) WithStop(parsers map[*Language]*ts.Parser, lang *Language, stop *uint32) (restore func()) {
	p := ix.parser(parsers, lang)
	ix.addFlag(stop)
	p.SetCancellationFlag(stop)
	return func() {
		p.SetCancellationFlag(&ix.stop)
		ix.removeFlag(stop)
	}
}

// Stats reports what one indexing run did.
type Stats struct {
	// Files is the number of indexed files after the run.
	Files int `json:"files"`
	// Parsed counts files (re)parsed in this run; Unchanged those whose
	// content hash matched the store; Removed records of deleted files.
	Parsed    int `json:"parsed"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
	// Bytes is the total size of the indexed files; ParsedBytes of those
	// parsed in this run.
	Bytes       int64 `json:"bytes"`
	ParsedBytes int64 `json:"parsed_bytes"`
	// FilesByLang and SymbolsByLang count indexed files and definitions per
	// language name.
	FilesByLang   map[string]int `json:"files_by_language"`
	SymbolsByLang map[string]int `json:"symbols_by_language"`
	// Skipped counts files left out, by reason (see Skip* constants).
	Skipped map[string]int `json:"skipped"`
	// ParseErrors counts files whose tree has a syntax error (definitions
	// are still extracted from the rest).
	ParseErrors int `json:"parse_errors"`
	// Changed lists the workspace-relative paths added, modified or removed
	// by this run, sorted.
	Changed []string `json:"changed,omitempty"`
	// Elapsed is the wall time of the run.
	Elapsed time.Duration `json:"elapsed_ns"`
}

type parseJob struct {
	cand Candidate
	old  *FileMeta
}

type parseResult struct {
	rec  *FileRecord
	toks []byte // token record (encodeTokens); nil: keep the stored one
	skip string
	same bool // content hash unchanged: only metadata refreshed
	err  error
}

// Run walks the workspace and brings the store up to date: new and modified
// files are parsed on all cores, unchanged ones (same size and mtime, or
// same content hash) are not re-parsed, and records of deleted files are
// removed. A file that cannot be read or parsed is counted and skipped; the
// run only fails on store errors, leaving the previous state of any file it
// could not write. o puts some files first and reports progress
// (RunOptions); Prioritize and Foreground reorder and pause the parses of
// a run from other goroutines.
func (ix *Indexer) Run(ctx context.Context, o RunOptions) (Stats, error) {
	start := time.Now()
	st := Stats{FilesByLang: map[string]int{}, SymbolsByLang: map[string]int{}}
	jobs, removed, stored, err := ix.plan(&st)
	if err != nil {
		return st, err
	}
	if o.First != nil && len(jobs) > 1 { // an order to choose
		jobs = orderFirst(jobs, o.First())
	}
	if ix.Project != nil {
		defer ix.Project.cacheFiles()()
	}
	w := &indexWriter{store: ix.Store, b: ix.Store.pdb().NewBatch(), progress: o.Progress, total: len(jobs), flushed: time.Now()}
	if o.Bulk && stored == 0 && len(jobs) > 0 {
		// One buffer for the run, kept by Reset (flushBulk): Pebble
		// drops a batch's buffer over 1 MiB at Reset, and growing it
		// again by doubling was ~1.5 % of a cold index's CPU (pprof).
		_ = w.b.Close()
		w.b = ix.Store.pdb().NewBatch(pebble.WithInitialSizeBytes(bulkBatchBytes), pebble.WithMaxRetainedSizeBytes(4*bulkBatchBytes))
		w.bulk = true
		ix.Store.removeIngestFiles()
	}
	if w.progress != nil && len(jobs) == 0 {
		w.progress(0, 0)
	}
	defer w.close()
	if err := w.apply(ix.parseAll(ctx, jobs), &st); err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if err := w.finish(removed, &st); err != nil {
		return st, err
	}
	if st.Parsed > 0 {
		ts.DrainArenaPools()
	}
	err = ix.count(&st)
	sort.Strings(st.Changed)
	st.Elapsed = time.Since(start)
	return st, err
}

// plan walks the workspace and returns the files to parse (new, or changed
// by size or mtime), the stored paths that are gone and the number of
// stored file records.
func (ix *Indexer) plan(st *Stats) ([]parseJob, []string, int, error) {
	max := ix.MaxFileSize
	if max == 0 {
		max = DefaultMaxFileSize
	}
	walk, err := Walk(ix.Root, max)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("walk %s: %w", ix.Root, err)
	}
	st.Skipped = walk.Skipped
	metas, err := ix.Store.FileMetas()
	if err != nil {
		return nil, nil, 0, err
	}
	seen := map[string]bool{}
	var jobs []parseJob
	for _, c := range walk.Files {
		seen[c.Path] = true
		if m, ok := metas[c.Path]; ok {
			// Unchanged by size and mtime, and the mtime is not so close to
			// the indexing time that a same-size write could hide (git's
			// "racy clean" rule).
			// A record without a token record of this gloss's layout is
			// parsed again (once after an upgrade).
			if m.Size == c.Size && m.ModTime == c.ModTime && c.ModTime < m.Indexed-int64(2*time.Second) && m.Tokens == TokensVersion {
				st.Unchanged++
				continue
			}
			mm := m
			jobs = append(jobs, parseJob{cand: c, old: &mm})
			continue
		}
		jobs = append(jobs, parseJob{cand: c})
	}
	var removed []string
	for p := range metas {
		if !seen[p] {
			removed = append(removed, p)
		}
	}
	return jobs, removed, len(metas), nil
}

// indexWriter writes parse results in batches of about 4 MiB (not
// synced), and the last one synced; a bulk writer holds the batches and
// ingests them (Store.ingestBatches) when they pass bulkLimitBytes and
// at the end.
type indexWriter struct {
	store *Store
	b     *pebble.Batch
	// bulk: RunOptions.Bulk on a store without file records. held are
	// copies of the full batches' Repr not yet written, of heldBytes
	// bytes (exact copies: a batch's buffer grows by doubling, and b is
	// reused).
	bulk      bool
	held      [][]byte
	heldBytes int
	// ingesting receives the result of the ingest of earlier held
	// batches running on another goroutine (flushBulk); nil when none.
	ingesting chan error
	// progress (RunOptions.Progress) is told of each result of total.
	progress    func(done, total int)
	done, total int
	flushed     time.Time // last commit (flush)
	// paths are the files whose records b writes or deletes, told to the
	// store's definition table after the commit (Store.filesWritten).
	paths []string
}

func (w *indexWriter) flush(final bool) error {
	if w.b.Empty() && !final {
		return nil
	}
	if w.bulk {
		return w.flushBulk(final)
	}
	opt := pebble.NoSync
	if final {
		opt = pebble.Sync
	}
	err := w.store.Commit(w.b, opt)
	if len(w.paths) > 0 {
		w.store.filesWritten(w.paths)
		w.paths = nil
	}
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	w.b = w.store.pdb().NewBatch()
	w.flushed = time.Now()
	return nil
}

// flushBulk holds the current batch and, when the held batches pass
// bulkLimitBytes, hands them to an ingest on another goroutine
// (ingestHeld) while the run goes on parsing; when the run is over
// (final) it waits for that ingest and ingests what is left. A
// synchronous ingest stopped every parse for its length: sympy's two
// (0.22 and 0.25 s on 2 cores) left the cores without a parse for
// 0.3 s of a 10 s run (a per-parse timeline; docs/benchmarks.md,
// session 26), and on more cores every worker waits. One ingest runs at
// a time, in order (a later set of a key wins only in a later ingest),
// so a run holds at most the batches of the running ingest and those
// filling up behind it. The error of an ingest that failed is returned
// by the next call.
func (w *indexWriter) flushBulk(final bool) error {
	if !w.b.Empty() {
		r := bytes.Clone(w.b.Repr())
		w.heldBytes += len(r)
		w.held = append(w.held, r)
		w.b.Reset()
	}
	w.flushed = time.Now()
	if w.ingesting != nil && !final {
		select {
		case err := <-w.ingesting:
			w.ingesting = nil
			if err != nil {
				return err
			}
		default:
		}
	}
	if !final && w.heldBytes < bulkLimitBytes {
		return nil
	}
	if err := w.waitIngest(); err != nil {
		return err
	}
	held, paths := w.held, w.paths
	w.held, w.heldBytes, w.paths = nil, 0, nil
	if final {
		return w.ingestHeld(held, paths, true)
	}
	done := make(chan error, 1)
	w.ingesting = done
	go func() { done <- w.ingestHeld(held, paths, false) }()
	return nil
}

// ingestHeld ingests held (ingestBatches) or, when they are not all
// sets (errNotSets: a record replaced), commits them in order, the last
// synced when final; then it tells the store's definition table of
// paths, the files they write (as flush does).
func (w *indexWriter) ingestHeld(held [][]byte, paths []string, final bool) error {
	err := w.store.ingestBatches(context.Background(), held)
	if errors.Is(err, errNotSets) {
		err = w.commitHeld(held, final)
	}
	if len(paths) > 0 {
		w.store.filesWritten(paths)
	}
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// waitIngest waits for the ingest flushBulk started on another
// goroutine, if any, and returns its error.
func (w *indexWriter) waitIngest() error {
	if w.ingesting == nil {
		return nil
	}
	err := <-w.ingesting
	w.ingesting = nil
	return err
}

// commitHeld commits the batches held in order, the last synced when
// final.
func (w *indexWriter) commitHeld(held [][]byte, final bool) error {
	for i, r := range held {
		b := w.store.pdb().NewBatch()
		err := b.SetRepr(r)
		if err == nil {
			opt := pebble.NoSync
			if final && i == len(held)-1 {
				opt = pebble.Sync
			}
			err = w.store.Commit(b, opt)
		}
		_ = b.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// close waits for an ingest still running (a run that failed or was
// cancelled returns before its final flush) and releases the batch.
func (w *indexWriter) close() {
	_ = w.waitIngest()
	_ = w.b.Close()
}

// apply writes each parse result, counting it in st.
func (w *indexWriter) apply(results <-chan parseResult, st *Stats) error {
	for res := range results {
		if w.progress != nil && res.err == nil {
			w.done++
			w.progress(w.done, w.total)
		}
		if res.err != nil {
			// Let the workers finish (they block on a full channel).
			go func() {
				for range results {
				}
			}()
			return res.err
		}
		if res.skip != "" {
			st.Skipped[res.skip]++
			if res.rec != nil { // previously indexed, now skipped
				if old, _ := w.store.replacedFile(res.rec.Path); old != nil {
					deleteFileKeys(w.b, old)
					w.paths = append(w.paths, old.Path)
					deleteTokens(w.b, old.Path)
					st.Changed = append(st.Changed, res.rec.Path)
				}
			}
			continue
		}
		if res.same {
			st.Unchanged++
		} else {
			st.Parsed++
			if st.Parsed%256 == 0 || res.rec.Size >= largeParseBytes {
				// gotreesitter keeps released node arenas in a global pool
				// that only grows; drain it now and then so a large index
				// run does not hold every arena it ever used.
				ts.DrainArenaPools()
			}
			st.ParsedBytes += res.rec.Size
			st.Changed = append(st.Changed, res.rec.Path)
		}
		old, err := w.store.replacedFile(res.rec.Path)
		if err != nil {
			return err
		}
		if res.same && old != nil {
			res.rec.Defs, res.rec.Calls, res.rec.Imports, res.rec.HasError = old.Defs, old.Calls, old.Imports, old.HasError
			if res.toks == nil {
				res.rec.Tokens = old.Tokens
			}
		}
		if err := putFile(w.b, old, res.rec, res.toks); err != nil {
			return err
		}
		w.paths = append(w.paths, res.rec.Path)
		if w.b.Len() > bulkBatchBytes || (!w.bulk && time.Since(w.flushed) > time.Second) {
			// Readers (a hover during a background run) see what is
			// indexed so far.
			if err := w.flush(false); err != nil {
				return err
			}
		}
	}
	return nil
}

// bulkBatchBytes is the size (Batch.Len) from which the writer commits a
// batch, or a bulk writer copies it aside (flushBulk).
const bulkBatchBytes = 4 << 20

// largeParseBytes is the size from which a parsed file's arenas are
// drained from gotreesitter's pool at once (ts.DrainArenaPools) rather
// than at the next 256th file: the arenas of one 400 KB test file hold
// ~150 MB, which the pool would otherwise keep alive for the rest of the
// run.
const largeParseBytes = 128 << 10

// finish removes the records of removed files, bumps the generation when
// anything changed, and commits durably.
func (w *indexWriter) finish(removed []string, st *Stats) error {
	for _, p := range removed {
		old, err := w.store.replacedFile(p)
		if err != nil {
			return err
		}
		if old != nil {
			deleteFileKeys(w.b, old)
			w.paths = append(w.paths, p)
			deleteTokens(w.b, p)
			st.Removed++
			st.Changed = append(st.Changed, p)
		}
	}
	if len(st.Changed) > 0 {
		gen, err := w.store.Generation()
		if err != nil {
			return err
		}
		if err := w.b.Set(Key(prefixMeta, "gen"), []byte(strconv.FormatUint(gen+1, 10)), nil); err != nil {
			return err
		}
	}
	return w.flush(true)
}

// count fills in st's totals from the stored file metadata.
func (ix *Indexer) count(st *Stats) error {
	metas, err := ix.Store.FileMetas()
	if err != nil {
		return err
	}
	for _, m := range metas {
		st.Files++
		st.Bytes += m.Size
		st.FilesByLang[m.Lang]++
		st.SymbolsByLang[m.Lang] += m.Defs
		if m.HasError {
			st.ParseErrors++
		}
	}
	return nil
}

// DefaultMaxParseBytes is Indexer.MaxParseBytes when it is 0: 256 KiB
// of parse weight, so at most 16 files at once under tree-sitter
// (parseOverheadBytes each and their sizes; Python and Go files weigh
// less: treeWeight, goFastWeight), and about 100 MB of syntax trees at
// gotreesitter's worst ~400 bytes per source byte (measured on
// prometheus' largest test files). It was 512 KiB of source without a
// per-file overhead: a cold index of prometheus then peaked at ~700 MiB
// resident with GOMAXPROCS 16, at ~360 MiB with 128 KiB (docs/
// benchmarks.md, branch rss15). 128 KiB left a core idle for about a
// tenth of a cold index of sympy (1,603 Python files, 136 of them over
// 48 KB) on 2 cores while large files waited to be parsed alone: 256 KiB
// took 14.9–15.2 s there instead of 16.2 s (the bare parse: 13.5 s) and
// peaked at 356 MiB with GOMAXPROCS 16 (128 KiB: 361 MiB), prometheus at
// 345 MiB (303), the collector working harder near indexMemoryLimit
// (docs/benchmarks.md, session 23).
const DefaultMaxParseBytes = 256 << 10

// parseOverheadBytes is what each parse weighs besides its source bytes
// (parseWeight): a tree-sitter parser's tables (gotreesitter's
// NewParser: 0.5–2.6 MiB by grammar) and the scratch a parse grows, a
// few MiB whatever the file's size, counted as 16 KiB of source at
// ~250 tree bytes per source byte, so that many small files do not run
// 16 parsers at once on 16 cores.
const parseOverheadBytes = 16 << 10

// parseWeight is the share of the parse budget (of max bytes) a file of
// size bytes takes: its size plus parseOverheadBytes, at most the whole
// budget.
func parseWeight(size, max int64) int64 {
	return min(max, size+parseOverheadBytes)
}

// treeWeight is the share of the parse budget (of max bytes) a file of
// language lang and size bytes takes under tree-sitter: its size divided
// by the language's weightDiv, plus parseOverheadBytes, at most the
// whole budget (parseWeight when weightDiv is 0 or 1). Python's is 2, as
// gotreesitter's Python trees hold ~113 bytes per source byte where
// TypeScript's hold ~445 (live heap with the tree, files of 8 KB and
// more: sympy's Python, prometheus' TypeScript; docs/benchmarks.md,
// session 23): two Python files of 100 KB are parsed at once, where
// each was parsed alone, the other workers waiting.
func treeWeight(lang *Language, size, max int64) int64 {
	if lang != nil && lang.weightDiv > 1 {
		return parseWeight(size/lang.weightDiv, max)
	}
	return parseWeight(size, max)
}

// goFastWeight is the share of the parse budget (of max bytes) a Go file
// of size bytes takes while the Go fast path (parseGoFast) parses it:
// size/goFastWeightDiv plus goFastOverheadBytes, at most the whole
// budget. go/parser's syntax tree, the token spans and the records
// allocate ~20 bytes per source byte (38 at most) on prometheus' Go
// files of 20 KB and more, where tree-sitter's trees take ~250–400, and
// the fast path has no parser tables: a Go file weighs about an eighth
// of what it would under tree-sitter, so that Go files are parsed on
// every core (a 13 KB file weighs 3.6 KiB: 35 at once in the default
// budget) and a large one no longer waits to be parsed alone. A file
// the fast path refuses takes its parseWeight before tree-sitter parses
// it (parseAll).
func goFastWeight(size, max int64) int64 {
	return min(max, size/goFastWeightDiv+goFastOverheadBytes)
}

// goFastWeightDiv and goFastOverheadBytes make goFastWeight.
const (
	goFastWeightDiv     = 8
	goFastOverheadBytes = 2 << 10
)

// goFast reports whether a file of language lang is parsed by the Go
// fast path first (parseRecord).
func (ix *Indexer) goFast(lang *Language) bool {
	return lang != nil && lang.Name == "go" && !ix.noGoFast
}

// parseAll reads and parses jobs on Workers goroutines, with files of at
// most MaxParseBytes of parse weight being parsed at once (a weighted
// semaphore: golang.org/x/sync/semaphore, each file weighing
// treeWeight, a Go file goFastWeight until the fast path refuses it),
// sharing their tree-sitter parsers (parserPool).
func (ix *Indexer) parseAll(ctx context.Context, jobs []parseJob) <-chan parseResult {
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	budget := ix.MaxParseBytes
	if budget <= 0 {
		budget = DefaultMaxParseBytes
	}
	sem := semaphore.NewWeighted(budget)
	// The root's symlinks resolved once for the run (ReadSourceFile
	// resolves them at every call); "" when that fails, and every file
	// then gets ReadSourceFile's error.
	realRoot, err := filepath.EvalSymlinks(ix.Root)
	if err != nil {
		realRoot = ""
	}
	in := make(chan parseJob)
	out := make(chan parseResult, workers*2)
	var wg sync.WaitGroup
	var pool parserPool
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parsers := map[*Language]*ts.Parser{}
			for j := range in {
				ix.yield(ctx)
				full := treeWeight(j.cand.Lang, j.cand.Size, budget)
				held := full
				if ix.goFast(j.cand.Lang) {
					held = goFastWeight(j.cand.Size, budget)
				}
				if sem.Acquire(ctx, held) != nil {
					continue // cancelled: Run reports ctx.Err()
				}
				weighed(j.cand.Path, held)
				// The fast path refused the file: its tree-sitter parse
				// takes the file's whole weight (released first, so
				// that two workers never hold part and wait for more).
				treeSitter := func() error {
					if held == full {
						return nil
					}
					weighed(j.cand.Path, 0)
					sem.Release(held)
					held = 0
					if err := sem.Acquire(ctx, full); err != nil {
						return err
					}
					held = full
					weighed(j.cand.Path, held)
					return nil
				}
				beforeParse(j.cand.Path)
				pool.lend(parsers, j.cand.Lang)
				res := ix.parseOne(ctx, parsers, realRoot, j, treeSitter)
				pool.takeBack(parsers)
				weighed(j.cand.Path, 0) // before the release: the hook never sees more than is held
				sem.Release(held)
				out <- res
			}
		}()
	}
	go func() {
		defer close(in)
		ix.feed(ctx, jobs, in)
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// parserPool holds the tree-sitter parsers of one index run (parseAll)
// that no worker is using, by language: a worker borrows one for a file
// and gives it back after the parse, so a run creates at most as many
// parsers of a language as it parses files of that language at once,
// not one per worker and language. A parser holds ~0.5–2 MiB of tables
// (gotreesitter's NewParser) and, once it has parsed, a few MiB of
// scratch it keeps for the next parse; with one parser per worker and
// language, a run on 16 cores over Go, TS, TSX and JS files held 64 of
// them (~70 MiB in a heap profile of a prometheus index,
// docs/benchmarks.md, branch rss15). The zero value is an empty pool.
type parserPool struct {
	mu   sync.Mutex
	idle map[*Language][]*ts.Parser
}

// lend puts an idle parser of lang, if the pool has one, into parsers
// (a worker's map, empty between files); ParseSource creates one there
// when the pool had none.
func (pp *parserPool) lend(parsers map[*Language]*ts.Parser, lang *Language) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if ps := pp.idle[lang]; len(ps) > 0 {
		parsers[lang] = ps[len(ps)-1]
		pp.idle[lang] = ps[:len(ps)-1]
	}
}

// takeBack moves every parser of parsers (a worker's map after a file)
// into the pool, leaving the map empty.
func (pp *parserPool) takeBack(parsers map[*Language]*ts.Parser) {
	if len(parsers) == 0 {
		return
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.idle == nil {
		pp.idle = map[*Language][]*ts.Parser{}
	}
	for lang, p := range parsers {
		pp.idle[lang] = append(pp.idle[lang], p)
		delete(parsers, lang)
	}
}

// parseOne reads and parses the file of j; realRoot is ix.Root with its
// symlinks resolved ("": read with ReadSourceFile, which resolves them).
// treeSitter is parseRecord's; its error (ctx's) fails the run.
func (ix *Indexer) parseOne(ctx context.Context, parsers map[*Language]*ts.Parser, realRoot string, j parseJob, treeSitter func() error) parseResult {
	c := j.cand
	var src []byte
	var err error
	if realRoot != "" {
		src, err = readSourceIn(realRoot, c.Path, ix.MaxFileSize)
	} else {
		src, err = ReadSourceFile(ix.Root, c.Path, ix.MaxFileSize)
	}
	if err != nil {
		return parseResult{skip: SkipUnreadable}
	}
	now := time.Now().UnixNano()
	rec := &FileRecord{V: SchemaVersion, Path: c.Path, Lang: c.Lang.Name, Size: int64(len(src)), ModTime: c.ModTime, Indexed: now}
	if reason := CheckContent(src); reason != "" {
		if j.old != nil {
			return parseResult{skip: reason, rec: rec}
		}
		return parseResult{skip: reason}
	}
	rec.Hash = HashBytes(src)
	same := j.old != nil && j.old.Hash == rec.Hash
	if same && j.old.Tokens == TokensVersion {
		return parseResult{rec: rec, same: true}
	}
	toks, err := ix.parseRecord(parsers, c.Lang, src, rec, treeSitter)
	if errors.Is(err, ErrInterrupted) || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return parseResult{err: err} // the run fails; nothing is written
	}
	if err != nil {
		return parseResult{skip: SkipUnreadable}
	}
	// same: parsed only for the token record an older gloss did not write;
	// the file counts as unchanged.
	return parseResult{rec: rec, toks: toks, same: same}
}

// parseRecord parses src, the content of the file rec.Path of language
// lang, and fills in what the index stores of the parse: rec's Defs,
// Calls, HasError, Imports (with targets) and Tokens; it returns the
// token record (nil when the file has none: over 2 GiB, or tokens that
// cannot be encoded; span anchors then parse the file). A Go file is
// parsed without tree-sitter (parseGoFast: go/parser and go/scanner give
// the same records, TestIndexRecordGoFast) unless the fast path refuses
// it (a syntax error, a NUL byte, a byte order mark, an unusual
// receiver) or noGoFast is set; errors are ParseSource's (ErrInterrupted
// when the indexer is interrupted). treeSitter, when not nil, is called
// before a Go file the fast path refused is parsed with tree-sitter (the
// worker takes the file's whole parse weight: parseAll); its error is
// returned.
func (ix *Indexer) parseRecord(parsers map[*Language]*ts.Parser, lang *Language, src []byte, rec *FileRecord, treeSitter func() error) ([]byte, error) {
	var f *File
	if ix.goFast(lang) {
		if atomic.LoadUint32(&ix.stop) != 0 {
			return nil, ErrInterrupted
		}
		if f, _ = ix.parseGoFast(lang, rec.Path, src, true); f == nil && treeSitter != nil {
			if err := treeSitter(); err != nil {
				return nil, err
			}
		}
	}
	if f == nil {
		var err error
		if f, err = ix.ParseSource(parsers, lang, rec.Path, src); err != nil {
			return nil, err
		}
		defer f.Release()
	}
	rec.Defs, rec.Calls, rec.HasError = f.Defs, f.Calls, f.HasError
	// Without a token record (a file over 2 GiB, tokens that cannot be
	// encoded) span anchors on the file parse it: no error.
	toks, _ := f.tokenRecord()
	rec.Tokens = TokensVersion
	if len(f.Imports) > 0 && ix.Project != nil {
		rec.Imports = append([]Import(nil), f.Imports...)
		ix.Project.ResolveImports(lang, rec.Path, rec.Imports)
	}
	return toks, nil
}

// ParseTimeout bounds the parse of one file. A parse that runs out of
// time returns a partial tree marked HasError, whose complete definitions
// are still extracted; zero or less times out at once (tests).
var ParseTimeout = 30 * time.Second

// Values of the cancellation flags gloss gives its parsers: stopInterrupt
// (Interrupt, a caller's WithStop flag: the parse fails with
// ErrInterrupted) and stopTimeout (ParseTimeout ran out: the partial tree
// is kept).
const (
	stopInterrupt uint32 = 1
	stopTimeout   uint32 = 2
)

// ParseSource parses src as the file at path with a parser from parsers
// (created and cached there on first use for the language). The caller owns
// the returned File and must Release it.
//
// The parse is bounded by ParseTimeout through the parser's cancellation
// flag, which a timer sets to stopTimeout (gotreesitter's SetTimeoutMicros
// would read the clock at every stop check of the parse loop, ~5 % of a
// cold index's CPU); Interrupt and WithStop flags set it to stopInterrupt.
func (ix *Indexer) ParseSource(parsers map[*Language]*ts.Parser, lang *Language, path string, src []byte) (*File, error) {
	p := ix.parser(parsers, lang)
	if atomic.LoadUint32(&ix.stop) != 0 {
		return nil, ErrInterrupted
	}
	flag := p.CancellationFlag()
	if flag == &ix.stop {
		// No WithStop flag: this parse gets its own, which Interrupt sets
		// as it sets ix.stop, and which the timer may set alone.
		flag = new(uint32)
		ix.addFlag(flag)
		p.SetCancellationFlag(flag)
		defer func() {
			p.SetCancellationFlag(&ix.stop)
			ix.removeFlag(flag)
		}()
	}
	d := armDeadline(flag, ParseTimeout)
	f, err := Parse(p, lang, path, src, ix.Project)
	d.disarm()
	if err == nil && atomic.LoadUint32(&ix.stop) != 0 {
		// A cancelled parse is partial: never take it for the file.
		f.Release()
		return nil, ErrInterrupted
	}
	return f, err
}

// deadline sets a cancellation flag to stopTimeout when its time runs out,
// unless the parse it bounds has ended (disarm).
type deadline struct {
	flag  *uint32
	timer *time.Timer
	mu    sync.Mutex
	over  bool // disarmed: the timer must not set the flag any more
	fired bool // the flag was set to stopTimeout
}

// armDeadline starts the timer of one parse: after d, flag goes from 0 to
// stopTimeout (a flag already set by an interrupt keeps its value).
func armDeadline(flag *uint32, d time.Duration) *deadline {
	dl := &deadline{flag: flag}
	if d <= 0 {
		dl.expire()
		return dl
	}
	dl.timer = time.AfterFunc(d, dl.expire)
	return dl
}

func (dl *deadline) expire() {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	if !dl.over && atomic.CompareAndSwapUint32(dl.flag, 0, stopTimeout) {
		dl.fired = true
	}
}

// disarm ends the deadline after the parse: the timer can no longer fire,
// and a flag it set goes back to 0, so that a WithStop flag serves the
// next parse (an interrupt's value stays).
func (dl *deadline) disarm() {
	if dl.timer != nil {
		dl.timer.Stop()
	}
	dl.mu.Lock()
	defer dl.mu.Unlock()
	dl.over = true
	if dl.fired {
		atomic.CompareAndSwapUint32(dl.flag, stopTimeout, 0)
	}
}

// addFlag registers a cancellation flag for Interrupt (set at once if the
// indexer is already interrupted); removeFlag forgets it.
func (ix *Indexer) addFlag(flag *uint32) {
	ix.flagMu.Lock()
	defer ix.flagMu.Unlock()
	if ix.flags == nil {
		ix.flags = map[*uint32]struct{}{}
	}
	ix.flags[flag] = struct{}{}
	if atomic.LoadUint32(&ix.stop) != 0 {
		atomic.StoreUint32(flag, stopInterrupt)
	}
}

func (ix *Indexer) removeFlag(flag *uint32) {
	ix.flagMu.Lock()
	defer ix.flagMu.Unlock()
	delete(ix.flags, flag)
}

// parser returns the parser of lang in parsers, creating it (NewParser,
// with the indexer's cancellation flag; ParseSource bounds each parse's
// time) on first use.
func (ix *Indexer) parser(parsers map[*Language]*ts.Parser, lang *Language) *ts.Parser {
	p := parsers[lang]
	if p == nil {
		p = NewParser(lang)
		p.SetCancellationFlag(&ix.stop)
		parsers[lang] = p
	}
	return p
}

// NewParser returns a tree-sitter parser of lang: for Python, TypeScript,
// TSX and JavaScript (Language.production) on gotreesitter's production
// route (Parser.SetAdmissionCandidateRoute(false)) instead of the compact
// parser core that gotreesitter 0.46 made its default full-parse route.
// The library promises byte-exact trees on both (CHANGELOG 0.46.0: the
// compact route falls back to production on any input it cannot
// reproduce). For those languages the trees were the same node for node
// on every file of mypy, sympy, excalidraw and prometheus' web UI, and
// the index records key for key and byte for byte
// (TestParseRoutesSameTrees does the same on this repository's sources
// and fixtures), while the production route is much faster on real
// source: gotreesitter alone on one core, mypy 6.3 → 3.6 s (peak 210 →
// 132 MB), sympy 22.7 → 12.0 s, excalidraw 3.3 → 2.7 s (docs/
// benchmarks.md, session 26). Go stays on the default route: there the
// routes disagree on ambiguous constructs (`undo[i]()` an index and a
// call, or a call with type arguments; `f.Fuzz(func…{…})` a call, or a
// conversion), and the Go fast path (parseGoFast) parses most Go files
// without tree-sitter anyway.
func NewParser(lang *Language) *ts.Parser {
	p := ts.NewParser(lang.TS())
	if lang.production {
		p.SetAdmissionCandidateRoute(false)
	}
	return p
}
