package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// retrievalConfig is the command line of `glossbench retrieval`.
type retrievalConfig struct {
	repo, gloss, home string
	ingest            int    // memories to generate and ingest first (0: use the home as it is)
	cliQueries        int    // queries run as one CLI process each, without a daemon
	daemonQueries     int    // queries run through one daemon connection
	settle            bool   // wait for the daemon's warm-up work to end before timing queries
	passes            int    // times the daemon queries are run, each pass a row (1: once)
	results           string // file receiving each daemon search's and context's result ("" : none)
	indexRuns         int    // cold index runs per embedder (0: skip)
	seed              int64
	only              map[string]bool
	// cliArgsOut, when set, receives the gloss arguments of each CLI
	// query (search_cli, then context_cli; one JSON array per line), so
	// that two binaries' outputs can be compared on the same queries.
	cliArgsOut string
}

func (c retrievalConfig) want(name string) bool { return len(c.only) == 0 || c.only[name] }

// retrievalMain is `glossbench retrieval`: search and context latency on
// a workspace with many memories, through a daemon and from CLI processes
// without one, the vector index's build time and size, and cold index time
// with the built-in embedder against GLOSS_EMBEDDER=none. Rows (JSON lines
// on standard output):
//
//	ingest           index and `remember --batch` of --ingest generated memories
//	search_cli       `gloss --no-daemon search` processes: first (cold caches, may rebuild derived indexes), p50, p95, CPU
//	context_cli      `gloss --no-daemon context` processes, likewise
//	daemon_start     `gloss daemon` until it answers (opens the store and derived indexes)
//	search_daemon    gloss.search over one LSP connection to the daemon: p50, p95, daemon CPU per query
//	context_daemon   gloss.context over the same connection
//	vector_build     rebuild of the vector index from the store (in a child process), vectors.bin size
//	index_embedder   cold `gloss index` with GLOSS_EMBEDDER=none and builtin, and their ratio
func retrievalMain(args []string) int {
	c, err := parseRetrieval(args)
	if err == nil {
		err = runRetrieval(context.Background(), c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "glossbench retrieval:", err)
		return 1
	}
	return 0
}

func parseRetrieval(args []string) (retrievalConfig, error) {
	fs := flag.NewFlagSet("retrieval", flag.ContinueOnError)
	var c retrievalConfig
	var only string
	fs.StringVar(&c.repo, "repo", "", "checkout (required)")
	fs.StringVar(&c.gloss, "gloss", "", "gloss binary (default: go build ./cmd/gloss of this module)")
	fs.StringVar(&c.home, "home", "", "GLOSS_HOME holding the workspace's store (required; kept)")
	fs.IntVar(&c.ingest, "ingest", 0, "index and ingest this many generated memories into --home first")
	fs.IntVar(&c.cliQueries, "cli-queries", 40, "queries run as CLI processes without a daemon")
	fs.IntVar(&c.daemonQueries, "daemon-queries", 300, "queries run through the daemon")
	fs.IntVar(&c.passes, "passes", 1, "run the daemon queries this many times in the same daemon (rows search_daemon, then search_daemon_2, …): later passes find the records, blocks and decoded file records the first read, as a long-running daemon does")
	fs.StringVar(&c.results, "results", "", "write each daemon search and context result to this file (JSON lines: work, query, result), to compare the rankings of two binaries")
	fs.BoolVar(&c.settle, "settle", false, "time daemon queries only once its start-up work (warm-up check) is done: its CPU use stays under 2% for 2 s")
	fs.IntVar(&c.indexRuns, "index-runs", 0, "cold index runs per embedder (none, builtin) in a scratch home; 0 skips")
	fs.Int64Var(&c.seed, "seed", 7, "seed of the queries")
	fs.StringVar(&c.cliArgsOut, "cli-args-out", "", "write the gloss arguments of the --cli-queries search and context queries to this file (JSON array per line) and run no row unless --only names some")
	fs.StringVar(&only, "only", "", "comma-separated rows (search_cli,context_cli,daemon,vector_build,index_embedder); default all")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.repo == "" || c.home == "" {
		return c, fmt.Errorf("--repo and --home are required")
	}
	var err error
	if c.repo, err = filepath.Abs(c.repo); err != nil {
		return c, err
	}
	if c.home, err = filepath.Abs(c.home); err != nil {
		return c, err
	}
	c.only = map[string]bool{}
	for _, o := range strings.Split(only, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.only[o] = true
		}
	}
	return c, nil
}

func runRetrieval(ctx context.Context, c retrievalConfig) error {
	if c.gloss == "" {
		dir, err := os.MkdirTemp("", "glossbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.gloss = filepath.Join(dir, "gloss")
		if err := buildGloss(c.gloss); err != nil {
			return err
		}
	}
	emit(row{"work": "setup", "repo": c.repo, "commit": gitHead(c.repo), "gloss": c.gloss, "home": c.home, "load": loadAvg()})
	var qs []benchQuery
	if c.ingest > 0 || c.want("search_cli") || c.want("context_cli") || c.want("daemon") || c.cliArgsOut != "" {
		ss, err := sites(c.repo) // parses the checkout: tens of CPU-seconds on prometheus
		if err != nil {
			return err
		}
		if c.ingest > 0 {
			if err := ingest(ctx, c, ss); err != nil {
				return err
			}
		}
		qs = queries(ss, max(c.cliQueries, c.daemonQueries), c.seed)
	}
	if c.cliArgsOut != "" {
		if err := writeCLIArgs(c, qs[:c.cliQueries]); err != nil {
			return err
		}
		if len(c.only) == 0 {
			return nil
		}
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"search_cli", func() error { return cliLatency(ctx, c, "search_cli", qs[:c.cliQueries]) }},
		{"context_cli", func() error { return cliLatency(ctx, c, "context_cli", qs[:c.cliQueries]) }},
		{"vector_build", func() error { return vectorBuild(ctx, c) }},
		{"daemon", func() error { return daemonLatency(ctx, c, qs[:c.daemonQueries]) }},
		{"index_embedder", func() error { return indexEmbedders(ctx, c) }},
	}
	for _, s := range steps {
		if !c.want(s.name) || (s.name == "index_embedder" && c.indexRuns == 0) {
			continue
		}
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// ingest indexes the checkout into c.home and stores c.ingest generated
// memories with `gloss remember --batch`.
func ingest(ctx context.Context, c retrievalConfig, ss []site) error {
	env := []string{"GLOSS_HOME=" + c.home}
	load := loadAvg()
	ix, err := runChild(ctx, env, true, nil, c.gloss, "--no-daemon", "-C", c.repo, "index")
	if err != nil {
		return err
	}
	lines := generateFrom(ss, c.ingest, 1)
	file := filepath.Join(c.home, "ingest.jsonl")
	if err := writeLines(file, lines); err != nil {
		return err
	}
	defer os.Remove(file)
	rb, err := runChild(ctx, env, true, func(code int) bool { return code == 1 }, c.gloss, "--no-daemon", "-C", c.repo, "remember", "--batch", file)
	if err != nil {
		return err
	}
	emit(row{"work": "ingest", "memories": c.ingest, "index_seconds": round(ix.seconds, 3), "index_cpu_seconds": round(ix.cpu, 3),
		"remember_seconds": round(rb.seconds, 3), "remember_cpu_seconds": round(rb.cpu, 3), "load": load})
	return nil
}

// cliArgs returns the gloss arguments of q for a search or context row.
func cliArgs(c retrievalConfig, work string, q benchQuery) []string {
	args := []string{"--no-daemon", "-C", c.repo, "--json"}
	if work == "context_cli" {
		args = append(args, "context", q.Text)
		if q.File != "" {
			args = append(args, "--files", q.File)
		}
		return args
	}
	return append(args, "search", q.Text, "--limit", "20")
}

// writeCLIArgs writes the gloss arguments of the search and then the
// context query of each of qs to c.cliArgsOut, one JSON array per line.
func writeCLIArgs(c retrievalConfig, qs []benchQuery) error {
	var lines [][]byte
	for _, work := range []string{"search_cli", "context_cli"} {
		for _, q := range qs {
			b, err := json.Marshal(cliArgs(c, work, q))
			if err != nil {
				return err
			}
			lines = append(lines, b)
		}
	}
	return writeLines(c.cliArgsOut, lines)
}

// cliLatency runs each query as its own gloss process without a daemon
// (after one untimed run that brings the derived indexes in step) and
// emits the first run's time, p50, p95 and mean CPU seconds.
func cliLatency(ctx context.Context, c retrievalConfig, work string, qs []benchQuery) error {
	env := []string{"GLOSS_HOME=" + c.home}
	load := loadAvg()
	first, err := runChild(ctx, env, true, nil, c.gloss, cliArgs(c, work, qs[0])...)
	if err != nil {
		return err
	}
	var wall, cpu []float64
	for _, q := range qs {
		ch, err := runChild(ctx, env, true, nil, c.gloss, cliArgs(c, work, q)...)
		if err != nil {
			return err
		}
		wall, cpu = append(wall, ch.seconds*1000), append(cpu, ch.cpu*1000)
	}
	r := latencyRow(work, wall, cpu)
	r["first_ms"], r["first_cpu_ms"], r["load"], r["load_after"] = round(first.seconds*1000, 1), round(first.cpu*1000, 1), load, loadAvg()
	emit(r)
	return nil
}

// latencyRow summarizes per-query wall and CPU milliseconds.
func latencyRow(work string, wall, cpu []float64) row {
	r := row{"work": work, "queries": len(wall), "p50_ms": round(percentile(wall, 50), 1), "p95_ms": round(percentile(wall, 95), 1),
		"max_ms": round(slices.Max(wall), 1)}
	if len(cpu) > 0 {
		r["cpu_p50_ms"], r["cpu_p95_ms"], r["cpu_mean_ms"] = round(percentile(cpu, 50), 1), round(percentile(cpu, 95), 1), round(mean(cpu), 2)
	}
	return r
}

// percentile returns the p-th percentile of xs (nearest rank).
func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	k := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(k, 0), len(s)-1)]
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// indexEmbedders runs cold `gloss index` c.indexRuns times with each
// embedder, alternating, in scratch homes.
func indexEmbedders(ctx context.Context, c retrievalConfig) error {
	secs := map[string][]float64{}
	cpus := map[string][]float64{}
	for i := 0; i < c.indexRuns; i++ {
		for _, e := range []string{"none", "builtin"} {
			home, err := os.MkdirTemp("", "glossbench-index-")
			if err != nil {
				return err
			}
			load := loadAvg()
			ch, err := runChild(ctx, []string{"GLOSS_HOME=" + home, "GLOSS_EMBEDDER=" + e}, true, nil, c.gloss, "--no-daemon", "-C", c.repo, "index")
			os.RemoveAll(home)
			if err != nil {
				return err
			}
			secs[e], cpus[e] = append(secs[e], ch.seconds), append(cpus[e], ch.cpu)
			emit(row{"work": "index_embedder", "embedder": e, "run": i + 1, "seconds": round(ch.seconds, 3), "cpu_seconds": round(ch.cpu, 3), "peak_rss_mib": round(ch.rssMiB, 1), "load": load})
		}
	}
	emit(row{"work": "index_embedder_ratio", "runs": c.indexRuns, "wall_ratio": round(mean(secs["builtin"])/mean(secs["none"]), 3),
		"cpu_ratio": round(mean(cpus["builtin"])/mean(cpus["none"]), 3)})
	return nil
}

// fileSize returns the size of path in MiB (0 when missing).
func fileSize(path string) float64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return round(float64(st.Size())/(1<<20), 2)
}

func buildGloss(out string) error {
	if _, err := runChild(context.Background(), nil, false, nil, "go", "build", "-o", out, "github.com/gloss-dev/gloss/cmd/gloss"); err != nil {
		return fmt.Errorf("build gloss: %w", err)
	}
	return nil
}

// procCPU returns the user + system CPU seconds of process pid so far
// (Linux /proc/PID/stat, clock ticks of 1/100 s).
func procCPU(pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / 100
}

// procRSSMiB returns the resident set size of process pid in MiB
// (VmRSS of /proc/PID/status, in KiB there); 0 where /proc is missing.
func procRSSMiB(pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return round(kib/1024, 1)
		}
	}
	return 0
}
