// Command gloss-eval measures gloss's staleness detection on the real git
// history of a Go repository.
//
// For each of the last N non-merge first-parent commits C (parent P) it
// anchors one memory to every function of P's version of each changed .go
// file, checks out C, runs `gloss check`, and compares gloss's verdicts with
// an independent oracle built on go/parser and go/scanner and with two
// baselines (line-hash and diff-map). It works on a temporary clone and a
// temporary GLOSS_HOME, so neither the repository nor the developer's gloss
// data is touched.
//
// Usage:
//
//	go run ./cmd/gloss-eval -gloss /path/to/gloss -repo /path/to/clone -commits 200 -out report.json
//
// Without -gloss only the oracle and the baselines run. See docs/eval.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

type options struct {
	gloss     string
	repo      string
	rev       string
	commits   int
	maxFuncs  int
	out       string
	timeout   time.Duration
	freshHome bool
	reindex   bool
	keep      bool

	stdout, stderr io.Writer // summary and progress
}

func main() {
	o := options{stdout: os.Stdout, stderr: os.Stderr}
	flag.StringVar(&o.gloss, "gloss", "", "path of the gloss binary to evaluate (empty: oracle and baselines only)")
	flag.StringVar(&o.repo, "repo", ".", "git repository to evaluate on (a clone or a bare git dir; it is copied, never modified)")
	flag.StringVar(&o.rev, "rev", "HEAD", "revision whose first-parent history is walked")
	flag.IntVar(&o.commits, "commits", 200, "number of most recent non-merge first-parent commits")
	flag.IntVar(&o.maxFuncs, "max-funcs-per-commit", 400, "skip commits whose changed files hold more functions than this")
	flag.StringVar(&o.out, "out", "", "write the full JSON report to this file")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "time limit of each gloss invocation")
	flag.BoolVar(&o.freshHome, "fresh-home", false, "use a new GLOSS_HOME per commit pair (full index each time) instead of reusing one and forgetting memories")
	flag.BoolVar(&o.reindex, "index-before-check", false, "also run `gloss index` after checking out C, before `gloss check`")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (clone and GLOSS_HOME) for inspection")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gloss-eval -gloss BIN -repo DIR [-commits N] [-out report.json]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || o.commits < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "gloss-eval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	start := time.Now()
	repo, err := absPaths(&o)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gloss-eval-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(o.stderr, "gloss-eval: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	home := filepath.Join(tmp, "home")
	clone := filepath.Join(tmp, "repo")
	glossHome := filepath.Join(tmp, "gloss-home")
	for _, d := range []string{home, glossHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env := isolatedEnv(home)

	src := &Git{Dir: repo, Env: env}
	out, err := src.Run(ctx, "rev-parse", "--verify", o.rev+"^{commit}")
	if err != nil {
		return err
	}
	head := strings.TrimSpace(string(out))
	fmt.Fprintf(o.stderr, "gloss-eval: cloning %s into %s\n", repo, clone)
	if _, err := (&Git{Dir: tmp, Env: env}).Run(ctx, "clone", "--quiet", "--no-hardlinks", "--no-checkout", repo, clone); err != nil {
		return err
	}
	g := &Git{Dir: clone, Env: env}
	pairs, err := g.Pairs(ctx, head, o.commits)
	if err != nil {
		return err
	}
	if len(pairs) == 0 {
		return errors.New("no non-merge commits with a parent in the history")
	}
	blobs, err := NewBlobReader(ctx, g)
	if err != nil {
		return err
	}
	defer blobs.Close()

	r := &Report{
		Repo: repo, Head: head, CommitsRequested: o.commits, MaxFuncs: o.maxFuncs,
		Range: fmt.Sprintf("%.12s..%.12s", pairs[0].Parent, pairs[len(pairs)-1].Commit),
	}
	var gl *Gloss
	if o.gloss != "" {
		gl = &Gloss{Bin: o.gloss, Dir: clone, Home: glossHome, Env: env, Timeout: o.timeout, Timings: map[string]time.Duration{}}
		r.GlossBinary = o.gloss
		r.GlossVersion = gl.Version(ctx)
	}

	evalPairs(ctx, o, g, blobs, gl, r, pairs)
	if gl != nil {
		r.GlossSeconds = map[string]float64{}
		for k, d := range gl.Timings {
			r.GlossSeconds[k] = d.Seconds()
		}
	}
	r.Seconds = time.Since(start).Seconds()
	r.Finish(gl != nil)
	fmt.Fprintln(o.stdout)
	r.PrintSummary(o.stdout)
	return writeReport(o, r)
}

// absPaths makes o.gloss absolute (checking it exists) and returns the
// absolute repository path.
func absPaths(o *options) (string, error) {
	repo, err := filepath.Abs(o.repo)
	if err != nil || o.gloss == "" {
		return repo, err
	}
	if o.gloss, err = filepath.Abs(o.gloss); err != nil {
		return "", err
	}
	_, err = os.Stat(o.gloss)
	return repo, err
}

// evalPairs evaluates each commit pair in order, with a progress line per
// pair, until done or interrupted.
func evalPairs(ctx context.Context, o options, g *Git, blobs *BlobReader, gl *Gloss, r *Report, pairs []Pair) {
	for i, pair := range pairs {
		if ctx.Err() != nil {
			r.Interrupted = true
			return
		}
		t0 := time.Now()
		cr := &CommitReport{Pair: pair}
		r.Commits = append(r.Commits, cr)
		evalPair(ctx, o, g, blobs, gl, r, cr)
		blobs.Forget()
		cr.Seconds = time.Since(t0).Seconds()
		if ctx.Err() != nil {
			r.Interrupted = true
			if cr.Skipped == "" {
				cr.Skipped = "interrupted"
			}
			return
		}
		fmt.Fprintf(o.stderr, "[%d/%d] %.10s %s\n", i+1, len(pairs), pair.Commit, progressLine(cr))
	}
}

// writeReport writes r as JSON to o.out when asked.
func writeReport(o options, r *Report) error {
	if o.out == "" {
		return nil
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(o.stderr, "gloss-eval: wrote", o.out)
	return nil
}

func progressLine(cr *CommitReport) string {
	if cr.Skipped != "" {
		return "skipped: " + cr.Skipped
	}
	var oracle, lh, dm, gs, gn int
	for _, s := range cr.subjects {
		if s.Oracle.Stale() {
			oracle++
		}
		if s.LineHash.Stale {
			lh++
		}
		if s.DiffMap.Stale {
			dm++
		}
		if s.Gloss != nil {
			gn++
			if s.Gloss.Stale {
				gs++
			}
		}
	}
	line := fmt.Sprintf("files %d funcs %d stale: oracle %d line-hash %d diff-map %d", cr.Files, len(cr.subjects), oracle, lh, dm)
	if gn > 0 || len(cr.Errors) > 0 {
		line += fmt.Sprintf(" gloss %d/%d", gs, gn)
	}
	if len(cr.Errors) > 0 {
		line += fmt.Sprintf(" errors %d (%s)", len(cr.Errors), firstLine(cr.Errors[0]))
	}
	return line + fmt.Sprintf(" %.1fs", cr.Seconds)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// evalPair runs the oracle, the baselines and (with gl) gloss on one pair.
func evalPair(ctx context.Context, o options, g *Git, blobs *BlobReader, gl *Gloss, r *Report, cr *CommitReport) {
	ps := &PairSource{Git: g, Blobs: blobs, Parent: cr.Parent, Commit: cr.Commit}
	po, err := RunOracle(ctx, ps)
	if err != nil {
		cr.Skipped = "oracle: " + err.Error()
		return
	}
	cr.UnparsedFiles = po.SkippedFiles
	files := map[string]bool{}
	for _, s := range po.Subjects {
		files[s.Func.Path] = true
	}
	cr.Files = len(files)
	switch {
	case len(po.Subjects) == 0:
		cr.Skipped = "no functions in changed .go files"
		return
	case len(po.Subjects) > o.maxFuncs:
		cr.Skipped = fmt.Sprintf("%d functions > -max-funcs-per-commit %d", len(po.Subjects), o.maxFuncs)
		return
	}
	if err := RunBaselines(ctx, ps, po); err != nil {
		cr.Skipped = "baselines: " + err.Error()
		return
	}
	cr.subjects = po.Subjects
	defer func() {
		// Only names and lines are reported: drop the sources and tokens.
		for _, s := range po.Subjects {
			s.Func.Header, s.Func.Body, s.Func.Raw = nil, nil, ""
		}
	}()
	if gl == nil {
		return
	}
	if err := runGloss(ctx, o, g, gl, cr, po.Subjects); err != nil {
		cr.Errors = append(cr.Errors, err.Error())
		r.HarnessErrors++
	}
	for _, e := range cr.Errors {
		if strings.HasPrefix(e, "memory ") {
			r.HarnessErrors++
		}
	}
}

// runGloss anchors one memory per subject at the parent, checks at the
// commit and records gloss's verdicts. Per-memory failures are appended to
// cr.Errors with a "memory " prefix; a failure of the whole pair is
// returned.
func runGloss(ctx context.Context, o options, g *Git, gl *Gloss, cr *CommitReport, subjects []*Subject) error {
	if o.freshHome {
		home, err := os.MkdirTemp(filepath.Dir(gl.Home), "gloss-home-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(home)
		saved := gl.Home
		gl.Home = home
		defer func() { gl.Home = saved }()
	}
	if _, err := g.Run(ctx, "checkout", "-q", "-f", "--detach", cr.Parent); err != nil {
		return err
	}
	if err := gl.Index(ctx); err != nil {
		return err
	}
	reqs := make([]RememberRequest, len(subjects))
	for i, s := range subjects {
		f := s.Func
		reqs[i] = RememberRequest{
			Text:  fmt.Sprintf("eval %.10s %s %d", cr.Commit, f.Display(), i),
			At:    fmt.Sprintf("%s:%d-%d", f.Path, f.Start, f.End),
			Title: "eval",
		}
	}
	results, err := gl.Remember(ctx, reqs)
	if err != nil {
		return err
	}
	var ids []string
	for _, res := range results {
		if res.ID != "" {
			ids = append(ids, res.ID)
		}
	}
	if !o.freshHome {
		defer func() {
			if ctx.Err() != nil {
				return // interrupted: the temporary home goes away anyway
			}
			if n := gl.Forget(ctx, ids); n > 0 {
				cr.Errors = append(cr.Errors, fmt.Sprintf("forget failed for %d memories (left in the store; results are filtered by id)", n))
			}
		}()
	}
	if _, err := g.Run(ctx, "checkout", "-q", "-f", "--detach", cr.Commit); err != nil {
		return err
	}
	if o.reindex {
		if err := gl.Index(ctx); err != nil {
			return err
		}
	}
	checked, err := gl.Check(ctx)
	if err != nil {
		return err
	}
	for i, s := range subjects {
		res := results[i]
		switch m, ok := checked[res.ID]; {
		case res.Error != "":
			cr.Errors = append(cr.Errors, fmt.Sprintf("memory %s: remember: %s", reqs[i].At, res.Error))
		case !ok:
			cr.Errors = append(cr.Errors, fmt.Sprintf("memory %s: id %s missing from gloss check", reqs[i].At, res.ID))
		default:
			s.Gloss = glossPrediction(gl.Dir, res.ID, m)
		}
	}
	return nil
}
