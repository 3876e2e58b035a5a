package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// child is one finished measured process.
type child struct {
	seconds float64
	cpu     float64 // user + system seconds
	rssMiB  float64
	stdout  []byte
}

// runChild runs name with args and extra environment, its standard
// output kept in memory (or discarded when discard is set), and returns
// its wall time and peak RSS. A non-zero exit is an error only when
// okExit does not accept it.
func runChild(ctx context.Context, env []string, discard bool, okExit func(int) bool, name string, args ...string) (child, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	if discard {
		cmd.Stdout = io.Discard
	} else {
		cmd.Stdout = &out
	}
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Start()
	var hwm *hwmPoller
	if err == nil {
		hwm = pollHWM(cmd.Process.Pid)
		err = cmd.Wait()
	}
	c := child{seconds: time.Since(start).Seconds(), stdout: out.Bytes()}
	if cmd.ProcessState != nil {
		c.rssMiB = maxRSSMiB(cmd.ProcessState)
		c.cpu = cpuSeconds(cmd.ProcessState)
	}
	if hwm != nil {
		if mib := hwm.stopMiB(); mib > 0 {
			c.rssMiB = mib // the child's own peak (hwm.go)
		}
	}
	if err != nil {
		code := -1
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if okExit == nil || !okExit(code) {
			tail := errb.String()
			if len(tail) > 2000 {
				tail = tail[len(tail)-2000:]
			}
			return c, fmt.Errorf("%s %v: %v\n%s", filepath.Base(name), args, err, tail)
		}
	}
	return c, nil
}

func round(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}

// measureBare runs this program's bare-parse mode on k cores.
func measureBare(ctx context.Context, c config, k int, route string) (row, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	load := loadAvg()
	ch, err := runChild(ctx, []string{"GOMAXPROCS=" + strconv.Itoa(k)}, false, nil, self, "bare-parse", "--repo", c.repo, "--route", route)
	if err != nil {
		return nil, err
	}
	var res bareResult
	if err := json.Unmarshal(ch.stdout, &res); err != nil {
		return nil, fmt.Errorf("bare-parse output: %w", err)
	}
	return row{"work": "bare_parse", "route": route, "cores": k, "files": res.Files, "mib": round(float64(res.Bytes)/(1<<20), 2),
		"seconds": round(ch.seconds, 3), "cpu_seconds": round(ch.cpu, 3), "parse_seconds": round(res.Seconds, 3), "peak_rss_mib": round(ch.rssMiB, 1), "load": load}, nil
}

// measureIndexRows takes the bare_parse rows (both routes) and the
// cold_index row of k cores as c.runs rounds, each a bare parse on
// gotreesitter's default route, one on gloss's (bare-parse --route) and
// then, when c wants it, a cold index, one after the other, so that the
// host's drift (10–25 % within minutes on a shared 2-core machine,
// docs/benchmarks.md) moves both sides of a ratio alike. Each bare_parse
// row is the run of median time, with every run's time in runs_seconds;
// the cold_index row is the round of median ratio to the default route
// (ratio_to_bare, and that round's cpu_ratio_to_bare and ratios to
// gloss's route, ratio_to_bare_gloss_route and
// cpu_ratio_to_bare_gloss_route), with every round's ratio in ratios
// and every index's time in runs_seconds. With one run the rows are that
// run's.
func measureIndexRows(ctx context.Context, c config, k int) ([]row, error) {
	var bares, glossBares, indexes []row
	for range c.runs {
		b, err := measureBare(ctx, c, k, routeDefault)
		if err != nil {
			return nil, err
		}
		bares = append(bares, b)
		g, err := measureBare(ctx, c, k, routeGloss)
		if err != nil {
			return nil, err
		}
		glossBares = append(glossBares, g)
		if !c.want("cold_index") {
			continue
		}
		r, err := measureColdIndex(ctx, c, k, b, g)
		if err != nil {
			return nil, err
		}
		indexes = append(indexes, r)
	}
	var out []row
	if c.want("bare_parse") {
		out = append(out, medianRow(bares, "seconds", "runs_seconds"), medianRow(glossBares, "seconds", "runs_seconds"))
	}
	if len(indexes) > 0 {
		m := medianRow(indexes, "ratio_to_bare", "ratios")
		m["runs_seconds"] = column(indexes, "seconds")
		out = append(out, m)
	}
	return out, nil
}

// medianRow returns the row of rows whose key is the median (the lower
// of the two middle ones for an even count), with every row's key, in
// run order, under all (a row without key counts as 0).
func medianRow(rows []row, key, all string) row {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(num(rows[a], key), num(rows[b], key)) })
	m := rows[order[(len(order)-1)/2]]
	m[all] = column(rows, key)
	return m
}

// column returns key of every row, in order.
func column(rows []row, key string) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = num(r, key)
	}
	return out
}

// num returns the float64 under key of r, 0 when it has none.
func num(r row, key string) float64 {
	v, _ := r[key].(float64)
	return v
}

// measureColdIndex runs `gloss index` on an empty store with k cores,
// its ratios taken to the bare_parse rows bare (gotreesitter's default
// route) and glossBare (gloss's route; measureBare).
func measureColdIndex(ctx context.Context, c config, k int, bare, glossBare row) (row, error) {
	home := filepath.Join(c.work, "home-index-"+strconv.Itoa(k))
	_ = os.RemoveAll(home)
	defer os.RemoveAll(home)
	load := loadAvg()
	ch, err := runChild(ctx, []string{"GLOSS_HOME=" + home, "GOMAXPROCS=" + strconv.Itoa(k)}, false, nil,
		c.gloss, "--no-daemon", "-C", c.repo, "--json", "index")
	if err != nil {
		return nil, err
	}
	r := row{"work": "cold_index", "cores": k, "seconds": round(ch.seconds, 3), "cpu_seconds": round(ch.cpu, 3), "peak_rss_mib": round(ch.rssMiB, 1), "load": load}
	var res struct {
		Workspaces []struct {
			Files  int   `json:"files"`
			Parsed int   `json:"parsed"`
			Bytes  int64 `json:"bytes"`
		} `json:"workspaces"`
	}
	if json.Unmarshal(ch.stdout, &res) == nil && len(res.Workspaces) > 0 {
		r["files"], r["parsed"] = res.Workspaces[0].Files, res.Workspaces[0].Parsed
	}
	for suffix, floor := range map[string]row{"": bare, "_gloss_route": glossBare} {
		if secs, cpu := num(floor, "seconds"), num(floor, "cpu_seconds"); secs > 0 {
			r["ratio_to_bare"+suffix] = round(ch.seconds/secs, 3)
			r["cpu_ratio_to_bare"+suffix] = round(ch.cpu/cpu, 3)
		}
	}
	return r, nil
}

// measureMemories indexes the checkout in a store of its own, then for
// each cumulative step of c.steps ingests the new synthetic memories with
// `gloss remember --batch` and runs `gloss check --json` twice (the second,
// nothing changed, is the one reported; the first is reported too).
func measureMemories(ctx context.Context, c config) error {
	home := filepath.Join(c.work, "home-memories")
	_ = os.RemoveAll(home)
	env := []string{"GLOSS_HOME=" + home}
	if _, err := runChild(ctx, env, true, nil, c.gloss, "--no-daemon", "-C", c.repo, "index"); err != nil {
		return err
	}
	total := c.steps[len(c.steps)-1]
	lines, err := generate(c.repo, total, c.seed)
	if err != nil {
		return err
	}
	done := 0
	for _, step := range c.steps {
		if step <= done {
			continue
		}
		file := filepath.Join(c.work, fmt.Sprintf("batch-%d.jsonl", step))
		if err := writeLines(file, lines[done:step]); err != nil {
			return err
		}
		if c.want("remember_batch") {
			r, err := measureBatch(ctx, c, home, file, step-done, step)
			if err != nil {
				return err
			}
			emit(r)
		} else if _, err := runChild(ctx, env, true, func(code int) bool { return code == 1 }, c.gloss, "--no-daemon", "-C", c.repo, "remember", "--batch", file); err != nil {
			return err
		}
		_ = os.Remove(file)
		done = step
		if c.want("check") {
			for i, name := range []string{"check_first", "check"} {
				load := loadAvg()
				ch, err := runChild(ctx, env, true, nil, c.gloss, "--no-daemon", "-C", c.repo, "--json", "check")
				if err != nil {
					return err
				}
				emit(row{"work": name, "memories": step, "run": i + 1, "seconds": round(ch.seconds, 3), "cpu_seconds": round(ch.cpu, 3), "peak_rss_mib": round(ch.rssMiB, 1), "load": load})
			}
		}
	}
	return nil
}

// measureBatch takes the remember_batch row of one step: n memories of
// file ingested into home by `gloss remember --batch`, bringing it to
// total memories, c.runs times, each run but the last from a copy of home
// as it was before the step (os.CopyFS), so that every run ingests into
// the same store; home is left as the last run made it. The row is the
// run of median time, with every run's time (runs_seconds) and peak
// (runs_peak_rss_mib).
func measureBatch(ctx context.Context, c config, home, file string, n, total int) (row, error) {
	env := []string{"GLOSS_HOME=" + home}
	before := home + "-before"
	var runs []row
	for r := range c.runs {
		last := r == c.runs-1
		if !last {
			_ = os.RemoveAll(before)
			if err := os.CopyFS(before, os.DirFS(home)); err != nil {
				return nil, fmt.Errorf("copy the store before the batch: %w", err)
			}
		}
		load := loadAvg()
		// Exit code 1 means some lines failed; count them below.
		ch, err := runChild(ctx, env, false, func(code int) bool { return code == 1 }, c.gloss, "--no-daemon", "-C", c.repo, "--json", "remember", "--batch", file)
		if err != nil {
			return nil, err
		}
		failed, sample := batchErrors(ch.stdout)
		runs = append(runs, row{"work": "remember_batch", "n": n, "total": total, "failed": failed, "errors_sample": sample, "seconds": round(ch.seconds, 3), "cpu_seconds": round(ch.cpu, 3),
			"per_second": round(float64(n)/ch.seconds, 0), "per_cpu_second": round(float64(n)/ch.cpu, 0), "peak_rss_mib": round(ch.rssMiB, 1), "load": load})
		if !last {
			if err := os.RemoveAll(home); err != nil {
				return nil, err
			}
			if err := os.Rename(before, home); err != nil {
				return nil, err
			}
		}
	}
	m := medianRow(runs, "seconds", "runs_seconds")
	m["runs_peak_rss_mib"] = column(runs, "peak_rss_mib")
	return m, nil
}

func writeLines(file string, lines [][]byte) error {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return os.WriteFile(file, b.Bytes(), 0o600)
}

// batchErrors counts the error lines of `gloss --json remember --batch`
// output and returns up to three distinct messages.
func batchErrors(out []byte) (int, []string) {
	n := 0
	var sample []string
	for _, l := range bytes.Split(out, []byte("\n")) {
		var e struct {
			Error string `json:"error"`
		}
		if !bytes.Contains(l, []byte(`"error"`)) || json.Unmarshal(l, &e) != nil || e.Error == "" {
			continue
		}
		n++
		if len(sample) < 3 && !slices.Contains(sample, e.Error) {
			sample = append(sample, e.Error)
		}
	}
	return n, sample
}
