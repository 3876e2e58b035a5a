package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/memory"
)

// daemonLatency starts `gloss daemon` on c.home, waits until it answers
// (daemon_start), then sends every query as gloss.search and every task
// as gloss.context over one LSP connection, as an editor or agent
// session does, and stops the daemon. Latency is measured at the client
// (request sent to result decoded); CPU is the daemon's, from /proc.
func daemonLatency(ctx context.Context, c retrievalConfig, qs []benchQuery) error {
	root, err := memory.FindRoot(c.repo)
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(c.home, "glossbench-daemon.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	load := loadAvg()
	cmd := exec.CommandContext(ctx, c.gloss, "-C", c.repo, "daemon", "--idle-timeout", "0")
	cmd.Env = append(os.Environ(), "GLOSS_HOME="+c.home)
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	cl, err := dialDaemon(ctx, daemon.Target{Root: root, Home: c.home, Version: "glossbench"}, 5*time.Minute)
	if err != nil {
		return err
	}
	defer cl.Close(context.Background())
	client := api.Client{Caller: cl}
	// The first search opens the derived indexes if the daemon has not yet.
	if _, err := client.Search(ctx, api.SearchArgs{Query: qs[0].Text, Limit: 20}); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	emit(row{"work": "daemon_start", "seconds": round(time.Since(start).Seconds(), 3), "cpu_seconds": round(procCPU(pid), 3), "load": load})
	if c.settle {
		settleDaemon(ctx, client, pid, start)
	}
	var results *json.Encoder
	if c.results != "" {
		f, err := os.Create(c.results)
		if err != nil {
			return err
		}
		defer f.Close()
		results = json.NewEncoder(f)
	}
	// record writes one result to --results with the request's wall
	// time in ms (after the request; the encoding, tens of µs, counts in
	// the next request's wall time, not in the daemon CPU).
	var started time.Time
	record := func(work string, q benchQuery, res any) error {
		if results == nil {
			return nil
		}
		ms := round(float64(time.Since(started).Microseconds())/1000, 3)
		return results.Encode(map[string]any{"work": work, "query": q.Text, "ms": ms, "result": res})
	}
	run := func(work string, one func(q benchQuery) error) error {
		load := loadAvg()
		cpu0 := procCPU(pid)
		var wall []float64
		for _, q := range qs {
			t := time.Now()
			started = t
			if err := one(q); err != nil {
				return fmt.Errorf("%s %q: %w", work, q.Text, err)
			}
			wall = append(wall, float64(time.Since(t).Microseconds())/1000)
		}
		r := latencyRow(work, wall, nil)
		r["daemon_cpu_ms_per_query"] = round((procCPU(pid)-cpu0)*1000/float64(len(qs)), 2)
		r["daemon_rss_mib"] = procRSSMiB(pid)
		r["load"], r["load_after"] = load, loadAvg()
		emit(r)
		return nil
	}
	search := func(q benchQuery) error {
		res, err := client.Search(ctx, api.SearchArgs{Query: q.Text, Limit: 20})
		if err != nil {
			return err
		}
		return record("search_daemon", q, res)
	}
	contextOne := func(q benchQuery) error {
		a := api.ContextArgs{Task: q.Text}
		if q.File != "" {
			a.Files = []string{q.File}
		}
		res, err := client.Context(ctx, a)
		if err != nil {
			return err
		}
		return record("context_daemon", q, res)
	}
	for pass := 1; pass <= max(c.passes, 1); pass++ {
		suffix := ""
		if pass > 1 {
			suffix = fmt.Sprintf("_%d", pass)
		}
		if err := run("search_daemon"+suffix, search); err != nil {
			return err
		}
		if err := run("context_daemon"+suffix, contextOne); err != nil {
			return err
		}
	}
	return nil
}

// dialDaemon connects to the daemon of t once it listens and starts an
// LSP session with no initial check.
func dialDaemon(ctx context.Context, t daemon.Target, timeout time.Duration) (*lspconn.Client, error) {
	deadline := time.Now().Add(timeout)
	for {
		c, err := daemon.Dial(t, daemon.VerbLSP)
		if err == nil {
			cl := lspconn.NewClient(c, lspconn.ClientOptions{})
			if err := cl.Initialize(ctx, t.Root, false); err != nil {
				c.Close()
				return nil, err
			}
			return cl, nil
		}
		if !errors.Is(err, daemon.ErrNotRunning) || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settleDaemon waits until the daemon pid has used under 2% of a core
// for 2 s (its warm-up check and caches done) and gloss.status reports no
// re-embedding of the vector index (a deferred retraining the warm-up
// started), at most 5 minutes, and emits the time and CPU it took
// (daemon_settled).
func settleDaemon(ctx context.Context, client api.Client, pid int, start time.Time) {
	const window = 2 * time.Second
	deadline := time.Now().Add(5 * time.Minute)
	for prev := procCPU(pid); time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(window)
		cur := procCPU(pid)
		if cur-prev < 0.02*window.Seconds() && !reembedding(ctx, client) {
			break
		}
		prev = cur
	}
	emit(row{"work": "daemon_settled", "seconds": round(time.Since(start).Seconds(), 3), "cpu_seconds": round(procCPU(pid), 3), "load": loadAvg()})
}

// reembedding reports whether any workspace folder of the daemon is
// re-embedding its vector index (gloss.status); false when the status
// cannot be read.
func reembedding(ctx context.Context, client api.Client) bool {
	st, err := client.Status(ctx, api.NoArgs{})
	if err != nil {
		return false
	}
	for _, w := range st.Workspaces {
		if w.Reembedding != nil {
			return true
		}
	}
	return false
}
