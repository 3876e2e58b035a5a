// Package importgit turns the first-parent git history of a workspace into
// memories (source memory.SourceImportedGit): one per commit, anchored to
// the definitions the commit changed. It reads history with git (log,
// rev-list, cat-file), parses file versions with the workspace's indexer
// and stores through memory.ImportSink.
package importgit

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	ts "github.com/odvcencio/gotreesitter"

	"github.com/gloss-dev/gloss/index"
	"github.com/gloss-dev/gloss/memory"
)

// Options select the commits Run reads.
type Options struct {
	// Since limits the walk to commits after a date (YYYY-MM-DD or RFC
	// 3339, by commit date) or after a revision (exclusive); "" for all.
	Since string `json:"since,omitempty"`
	// Limit is the most first-parent commits examined, newest first; 0
	// for no limit.
	Limit int `json:"limit,omitempty"`
	// Paths keeps only files matching a glob (path.Match, "**" for any
	// directories) or below a directory, relative to the workspace root.
	Paths string `json:"paths,omitempty"`
	// Merges imports merge commits too (their diff against the first
	// parent, titled by the pull request); skipped by default.
	Merges bool `json:"merges,omitempty"`
	// MaxDefinitions skips commits that change more definitions; 0 means
	// DefaultMaxDefinitions.
	MaxDefinitions int `json:"max_definitions,omitempty"`
	// Progress, when set, is called after each commit with the commits
	// done and the total.
	Progress func(done, total int) `json:"-"`
}

// DefaultMaxDefinitions is the number of changed definitions above which a
// commit is skipped as too broad to explain any one of them.
const DefaultMaxDefinitions = 25

// Result is what Run did.
type Result struct {
	// Branch and Head are the branch imported and its commit.
	Branch string `json:"branch"`
	Head   string `json:"head"`
	// Commits counts the first-parent commits examined; Created the
	// memories created (one per commit); Anchors their anchors; Stale the
	// created memories whose code changed since their commit.
	Commits int `json:"commits"`
	Created int `json:"created"`
	Anchors int `json:"anchors"`
	Stale   int `json:"stale"`
	// Skipped counts the commits without a memory, by reason (Skip*
	// constants).
	Skipped map[string]int `json:"skipped"`
	// Unreadable counts file versions whose content git could not give
	// (missing from a partial clone) or that were too large or not text.
	Unreadable int `json:"unreadable_files,omitempty"`
	// SkippedFiles counts the file versions left out of the comparison,
	// by reason (FileSkip* constants: missing, too_large, not_text — these
	// three make Unreadable — and generated).
	SkippedFiles map[string]int `json:"skipped_files,omitempty"`
	// Incremental reports that the walk started after the commit the
	// previous run recorded.
	Incremental bool `json:"incremental"`
	// Elapsed is the wall time.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// chunkMemoBytes bounds the source bytes of the declaration parses kept
// for first sights (index.ChunkMemo; about three times that in memory).
const chunkMemoBytes = 32 << 20

// importFlush is the number of memories written per durable batch.
const importFlush = 256

// Run turns the first-parent history of the workspace w's git
// repository into memories: one per commit (source imported_git), anchored
// to the definitions the commit changed as they were right after it, then
// resolved against the working tree, so a memory whose code changed again
// later is stale. Commits that explain no code are skipped and counted by
// reason. The memory id is derived from the commit (commitMemoryID), so a
// commit is never imported twice, and the last commit examined on the
// branch is recorded so that the next run reads only newer commits; a
// rewritten history is walked again and its known commits skipped.
func Run(ctx context.Context, w *memory.Workspace, opts Options) (Result, error) {
	start := time.Now()
	res := Result{Skipped: map[string]int{}}
	if opts.Limit < 0 || opts.MaxDefinitions < 0 {
		return res, fmt.Errorf("limit and max definitions must not be negative")
	}
	if opts.MaxDefinitions == 0 {
		opts.MaxDefinitions = DefaultMaxDefinitions
	}
	if err := checkGlob(opts.Paths); err != nil {
		return res, err
	}
	p, err := planImport(ctx, w, opts)
	if err != nil {
		return res, err
	}
	res.Branch, res.Head, res.Incremental, res.Commits = p.branch, p.head, p.incremental, len(p.commits())
	if res.Commits > 0 {
		if _, err := w.Index(ctx); err != nil {
			return res, err
		}
		if err := runImport(ctx, w, p, opts, &res); err != nil {
			return res, err
		}
	}
	if p.next.Head != "" && p.next != p.mark {
		if err := w.SetImportMark(p.branch, p.next.encode()); err != nil {
			return res, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// isAncestor reports whether commit a is an ancestor of b (false when a
// is no longer in the repository, e.g. after a rewrite and gc).
func isAncestor(ctx context.Context, dir, a, b string) bool {
	return gitCmd(ctx, dir, "merge-base", "--is-ancestor", a, b).Run() == nil
}

// gitOut runs git and returns its trimmed output.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitCmd(ctx, dir, args...).Output()
	return strings.TrimSpace(string(out)), err
}

// orderWindow is how many commits the walk may read ahead of the oldest
// one whose result is not stored yet (results are small: a memory or a
// skip reason).
const orderWindow = 256

// runImport streams the planned commits through the parse workers and
// stores their memories in order.
func runImport(ctx context.Context, w *memory.Workspace, p *importPlan, opts Options, res *Result) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	merges := map[string]bool{}
	for _, c := range p.commits() {
		if c.parents > 1 {
			merges[c.hash] = true
		}
	}
	im := &importer{w: w, plan: p, opts: opts, cache: newFileCache(), chunks: index.NewChunkMemo(chunkMemoBytes), live: newLiveCommits(ctx, w.Root, p)}
	workers := max(1, runtime.GOMAXPROCS(0))
	// The collector takes results in commit order: a window of
	// orderWindow commits lets a worker run ahead of one busy with a large
	// commit (with 2 per worker, most of the window held merges and bots
	// decided without a worker, and the other worker stood idle).
	order := make(chan chan commitResult, orderWindow)
	jobs := make(chan importJob, 2*workers)
	errc := make(chan error, workers+1)
	for range workers {
		go im.worker(ctx, jobs, errc)
	}
	go func() {
		defer close(order)
		defer close(jobs)
		seq := 0
		// Segments are newest first; history is read oldest first.
		for k := len(p.segments) - 1; k >= 0; k-- {
			if err := im.feed(ctx, p.segments[k], merges, &seq, jobs, order); err != nil {
				errc <- err
				return
			}
		}
	}()
	return im.collect(ctx, order, errc, res)
}

// feed reads one segment's commits with `git log` (oldest first) and hands
// them to the workers, or straight to the collector when their metadata
// decides (precheck); seq numbers the commits across segments.
func (im *importer) feed(ctx context.Context, s planSegment, merges map[string]bool, seq *int, jobs chan<- importJob, order chan<- chan commitResult) error {
	revs := []string{s.head}
	if s.base != "" {
		revs = append(revs, "^"+s.base)
	}
	lr, err := startLog(ctx, im.w.Root, revs)
	if err != nil {
		return err
	}
	defer lr.Close()
	for ; ; *seq++ {
		c, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		out := make(chan commitResult, 1)
		if reason := im.precheck(c, merges[c.Hash]); reason != "" {
			out <- commitResult{skip: reason}
		} else {
			select {
			case jobs <- importJob{seq: *seq, c: c, out: out}:
			case <-ctx.Done():
				return nil
			}
		}
		select {
		case order <- out:
		case <-ctx.Done():
			return nil
		}
	}
}

// collect stores the results in commit order, flushing every importFlush
// memories, and reports progress.
func (im *importer) collect(ctx context.Context, order chan chan commitResult, errc chan error, res *Result) error {
	sink, err := im.w.NewImportSink()
	if err != nil {
		return err
	}
	defer sink.Close()
	var pending []*memory.Memory
	done := 0
	for out := range order {
		var cr commitResult
		select {
		case cr = <-out:
		case err := <-errc:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
		done++
		for reason, n := range cr.skippedFiles {
			if res.SkippedFiles == nil {
				res.SkippedFiles = map[string]int{}
			}
			res.SkippedFiles[reason] += n
			if reason != FileSkipGenerated {
				res.Unreadable += n
			}
		}
		switch {
		case cr.err != nil:
			return cr.err
		case cr.skip != "":
			res.Skipped[cr.skip]++
		default:
			pending = append(pending, cr.mem)
		}
		if len(pending) >= importFlush {
			if err := im.flush(sink, pending, res); err != nil {
				return err
			}
			pending = pending[:0]
			// Parse arenas of released trees sit in gotreesitter's pools
			// (up to megabytes each); give them back like index.Indexer.Run.
			ts.DrainArenaPools()
		}
		if im.opts.Progress != nil {
			im.opts.Progress(done, res.Commits)
		}
	}
	select {
	case err := <-errc:
		return err
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return im.flush(sink, pending, res)
}

// flush resolves the anchors of mems against the working tree and stores
// them in one durable batch (memory.ImportSink.Put), counting those stored
// before as SkipImported.
func (im *importer) flush(sink *memory.ImportSink, mems []*memory.Memory, res *Result) error {
	if len(mems) == 0 {
		return nil
	}
	stored, err := sink.Put(mems)
	if err != nil {
		return err
	}
	if n := len(mems) - len(stored); n > 0 {
		res.Skipped[SkipImported] += n
	}
	for _, m := range stored {
		res.Created++
		res.Anchors += len(m.Anchors)
		if m.Stale() {
			res.Stale++
		}
	}
	return nil
}
