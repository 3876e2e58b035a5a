// Command glossbench re-takes the scale table of issue #12 on any checkout:
// it builds a workspace from the repository given by --repo (in a fresh
// GLOSS_HOME, personal memories only, so the checkout is not written to),
// and prints one JSON object per measurement on standard output:
//
//	bare_parse      gotreesitter's parse alone of the files gloss indexes, on its
//	                default route (route "default", the floor of issue #12's
//	                table) and on the route gloss parses each language with
//	                (route "gloss": production for Python, TypeScript, JavaScript)
//	cold_index      `gloss index` on an empty store, and its ratios to both bare_parse rows
//	remember_batch  `gloss remember --batch` of synthetic memories (rate, peak RSS)
//	check           `gloss check --json` with nothing changed
//	first_hover     first hover answered after `gloss lsp` starts on an unindexed repository
//
// `glossbench retrieval` measures search and context latency instead
// (retrieval.go); `glossbench bm25` the full-text ranker alone, in
// process, over memories of two word distributions (bm25.go).
//
// Every row carries the wall time in seconds, the peak resident set size
// of the measured process in MiB (its VmHWM sampled from /proc on Linux,
// else the ru_maxrss of that child, which Linux floors at glossbench's
// own peak: hwm.go) where it applies, and the 1/5/15-minute load average read
// from /proc/loadavg just before the measurement.
//
// Usage:
//
//	go run ./cmd/glossbench --repo /path/to/checkout [--n 20000,100000] [--cores 1,2] [--runs 3]
//
// bare_parse and cold_index are taken --runs times per core count, in
// alternated rounds (a bare parse on each route, then a cold index), and
// reported as the median: the round of median ratio to the default
// route, with every round's ratio (ratios) and
// every run's time (runs_seconds); each remember_batch step is taken
// --runs times from a copy of the store as it was before the step and
// reported as the median run. One slow moment of a shared host then
// does not make a row.
//
// --gloss names the binary to measure (default: built from this module),
// which is how before/after numbers of two commits are taken with one
// harness. The synthetic memories (see gen.go) are anchored to real
// definitions and line spans of the checkout.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// row is one measurement, printed as a JSON line.
type row map[string]any

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bare-parse" {
		os.Exit(bareParseMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "gen" {
		os.Exit(genMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "retrieval" {
		os.Exit(retrievalMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "bm25" {
		os.Exit(bm25Main(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "vector-build" {
		os.Exit(vectorBuildMain(os.Args[2:]))
	}
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "glossbench:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	repo, gloss, work string
	steps             []int // cumulative memory counts
	cores             []int
	only              map[string]bool
	seed              int64
	hoverTimeout      time.Duration
	runs              int // alternated bare-parse/cold-index rounds per core count; runs of each batch step
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("glossbench", flag.ContinueOnError)
	var c config
	var n, cores, only string
	fs.StringVar(&c.repo, "repo", "", "checkout to measure (required)")
	fs.StringVar(&c.gloss, "gloss", "", "gloss binary to measure (default: go build ./cmd/gloss of this module)")
	fs.StringVar(&c.work, "work", "", "directory for the stores and memory files (default: a temporary one, removed at the end)")
	fs.StringVar(&n, "n", "20000", "comma-separated cumulative memory counts: each step ingests the difference and checks")
	fs.StringVar(&cores, "cores", "1,2", "comma-separated GOMAXPROCS values for bare_parse and cold_index")
	fs.StringVar(&only, "only", "", "comma-separated rows to take (bare_parse,cold_index,remember_batch,check,first_hover); default all")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the synthetic memories")
	fs.DurationVar(&c.hoverTimeout, "hover-timeout", 10*time.Minute, "give up waiting for the first hover after this long")
	fs.IntVar(&c.runs, "runs", 3, "bare_parse and cold_index: alternated rounds per core count, each a bare parse on both routes and a cold index (the rows give the median round and every round's ratio); remember_batch: runs per step, each from the store as it was before the step (the row gives the median run)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.repo == "" {
		return c, fmt.Errorf("--repo is required")
	}
	var err error
	if c.repo, err = filepath.Abs(c.repo); err != nil {
		return c, err
	}
	if c.runs < 1 {
		return c, fmt.Errorf("--runs must be at least 1")
	}
	if c.steps, err = ints(n); err != nil {
		return c, fmt.Errorf("--n: %w", err)
	}
	if c.cores, err = ints(cores); err != nil {
		return c, fmt.Errorf("--cores: %w", err)
	}
	c.only = map[string]bool{}
	for _, o := range strings.Split(only, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.only[o] = true
		}
	}
	return c, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func (c config) want(name string) bool { return len(c.only) == 0 || c.only[name] }

func run(ctx context.Context, args []string) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	if c.work == "" {
		if c.work, err = os.MkdirTemp("", "glossbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(c.work)
	}
	if c.gloss == "" {
		c.gloss = filepath.Join(c.work, "gloss")
		if out, err := exec.Command("go", "build", "-o", c.gloss, "github.com/gloss-dev/gloss/cmd/gloss").CombinedOutput(); err != nil {
			return fmt.Errorf("build gloss: %v\n%s", err, out)
		}
	}
	measured, err := copyExecutable(c.gloss, c.work)
	if err != nil {
		return err
	}
	emit(row{"work": "setup", "repo": c.repo, "commit": gitHead(c.repo), "gloss": c.gloss, "load": loadAvg()})
	c.gloss = measured
	if c.want("bare_parse") || c.want("cold_index") {
		for _, k := range c.cores {
			rows, err := measureIndexRows(ctx, c, k)
			if err != nil {
				return err
			}
			for _, r := range rows {
				emit(r)
			}
		}
	}
	if c.want("remember_batch") || c.want("check") {
		if err := measureMemories(ctx, c); err != nil {
			return err
		}
	}
	if c.want("first_hover") {
		r, err := measureFirstHover(ctx, c)
		if err != nil {
			return err
		}
		emit(r)
	}
	return nil
}

func emit(r row) {
	data, _ := json.Marshal(r)
	fmt.Println(string(data))
}

// loadAvg returns the 1, 5 and 15-minute load averages (nil when
// /proc/loadavg cannot be read).
func loadAvg() []float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	var out []float64
	for _, f := range strings.Fields(string(data))[:3] {
		v, _ := strconv.ParseFloat(f, 64)
		out = append(out, v)
	}
	return out
}

func gitHead(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// copyExecutable copies the binary at src into dir (as gloss-measured,
// mode 0755, written with io.Copy) and returns the copy's path, so that
// every binary glossbench measures was written the same way: a binary
// just written by go build's linker had more of its pages mapped into
// the processes that ran it than a copy of it (likely the kernel's
// fault-around over the linker's mmap-written pages), and a process's
// resident set counts those pages. sympy's first 20,000 memories held
// 38.2–39.1 MB of a freshly built gloss's pages at their peak, 31.5–31.8
// MB of the same binary copied (/proc/PID/smaps; docs/benchmarks.md,
// session 26): before/after peaks of a new build against an older one
// differed by that much with no change in gloss's own memory.
func copyExecutable(src, dir string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("gloss binary: %w", err)
	}
	defer in.Close()
	dst := filepath.Join(dir, "gloss-measured")
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", fmt.Errorf("copy gloss binary: %w", err)
	}
	return dst, out.Close()
}
