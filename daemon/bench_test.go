package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkSecondClient measures how long a second session takes to see a
// memory remembered by the first: from sending gloss.remember in session A
// to session B's code lens request returning it, through a daemon process
// (both sessions are `gloss lsp` processes).
func BenchmarkSecondClient(b *testing.B) {
	e := newEnv(b, separate)
	root := newRepo(b, map[string]string{"calc.go": fixtureA, "go.mod": "module example.com/calc\n"})
	a, c := e.connect(root), e.connect(root)
	path := filepath.Join(root, "calc.go")
	a.open(path, fixtureA)
	c.open(path, fixtureA)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.mu.Lock()
		before := c.refresh
		c.mu.Unlock()
		start := time.Now()
		var v memory.View
		if err := a.exec("gloss.remember", map[string]any{"uri": api.PathToURI(path), "range": rangeOf(3, 6), "text": fmt.Sprintf("note %d", i)}, &v); err != nil {
			b.Fatal(err)
		}
		c.waitFor("refresh", func() bool { return c.refresh > before })
		want := fmt.Sprintf("%d memor", i+1)
		for {
			ls := c.lenses(path)
			if len(ls) == 1 && strings.HasPrefix(ls[0], want) {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "p95-ms")
	a.close()
	c.close()
}

// BenchmarkDaemonStart measures a cold start: from running `gloss lsp`
// with no daemon to its initialize answer, which includes starting
// `gloss daemon`, opening the store and the handshake.
func BenchmarkDaemonStart(b *testing.B) {
	e := newEnv(b, separate)
	root := newRepo(b, map[string]string{"calc.go": fixtureA, "go.mod": "module example.com/calc\n"})
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		_, _ = Stop(context.Background(), Target{Root: root, Home: e.home})
		start := time.Now()
		s := e.connect(root)
		lat = append(lat, time.Since(start))
		s.close()
	}
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "p95-ms")
}

// BenchmarkIdleRSS10k reports the resident memory of an idle daemon on a
// repository of 10,000 Go files (about 30 lines each), after its warm-up
// check has indexed them and no session is connected. Run with
// -benchtime=1x; GLOSS_BENCH_REPO=DIR measures an existing repository
// instead.
func BenchmarkIdleRSS10k(b *testing.B) {
	e := newEnv(b, separate)
	home, bin := e.home, e.bin
	root := os.Getenv("GLOSS_BENCH_REPO")
	if root == "" {
		root = testutil.InitRepo(b)
		files := map[string]string{"go.mod": "module example.com/big\n"}
		for i := 0; i < 10000; i++ {
			var s strings.Builder
			fmt.Fprintf(&s, "package p%d\n\n", i/100)
			for j := 0; j < 4; j++ {
				fmt.Fprintf(&s, "// F%d_%d computes.\nfunc F%d_%d(x int) int {\n\ty := x * %d\n\tif y > 10 {\n\t\treturn y\n\t}\n\treturn y + %d\n}\n\n", i, j, i, j, j, i)
			}
			files[fmt.Sprintf("p%d/f%d.go", i/100, i)] = s.String()
		}
		testutil.WriteFiles(b, root, files)
		testutil.Commit(b, root, "init")
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		cmd := exec.Command(bin, "-C", root, "daemon", "--idle-timeout", "0")
		cmd.Env = os.Environ()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		// Wait for the warm-up check: the status verb through the daemon
		// reports the indexed files.
		files, last := 0, -1
		for (files == 0 || files != last) && time.Since(start) < 20*time.Minute {
			time.Sleep(time.Second)
			out, err := exec.Command(bin, "-C", root, "--json", "status").Output()
			if err == nil {
				var st struct {
					Files int `json:"files"`
				}
				_ = json.Unmarshal(out, &st)
				last, files = files, st.Files
			}
		}
		ready := time.Since(start)
		time.Sleep(5 * time.Second) // idle
		rss := rssKB(cmd.Process.Pid)
		b.ReportMetric(float64(files), "files")
		b.ReportMetric(ready.Seconds(), "warm-s")
		b.ReportMetric(float64(rss)/1024, "idle-rss-MB")
		_, _ = Stop(context.Background(), Target{Root: mustRoot(b, root), Home: home})
		_ = cmd.Wait()
	}
}

func mustRoot(b *testing.B, dir string) string {
	r, err := memory.FindRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// rssKB reads VmRSS of pid from /proc, in KiB (0 when unknown).
func rssKB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	return 0
}
