package mcp_test

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/daemon"
	"github.com/gloss-dev/gloss/internal/lspconn"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// benchWords make the memory texts searchable.
var benchWords = []string{"retry", "cache", "token", "lock", "timeout", "parser", "index", "buffer", "socket", "queue",
	"schema", "migration", "auth", "session", "metrics", "shutdown", "backoff", "config", "encoding", "pool"}

// benchRepo writes files×funcs Go functions in a hermetic repository,
// stores one memory on each function and returns the root.
func benchRepo(b *testing.B, files, funcs int) string {
	home := testutil.Hermetic(b)
	repo := testutil.InitRepo(b)
	all := map[string]string{"go.mod": "module example.com/bench\n"}
	var reqs []memory.RememberRequest
	for f := 0; f < files; f++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n", f%20)
		line := 1
		path := fmt.Sprintf("p%d/f%d.go", f%20, f)
		for k := 0; k < funcs; k++ {
			fmt.Fprintf(&sb, "\n// F%d_%d does work.\nfunc F%d_%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b + %d\n\t}\n\treturn b - a\n}\n", f, k, f, k, k)
			start := line + 3
			line += 8
			n := len(reqs)
			text := fmt.Sprintf("%s %s: memory %d on F%d_%d", benchWords[n%len(benchWords)], benchWords[(n/7)%len(benchWords)], n, f, k)
			reqs = append(reqs, memory.RememberRequest{Text: text, Path: path, StartLine: start, EndLine: start + 5})
		}
		all[path] = sb.String()
	}
	testutil.WriteFiles(b, repo, all)
	testutil.Commit(b, repo, "bench")
	for i := range reqs {
		reqs[i].Path = repo + "/" + reqs[i].Path
	}
	ctx := context.Background()
	w, err := memory.Open(repo, memory.Options{Home: home, Author: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Index(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(reqs); i += 1000 {
		if _, errs := w.RememberBatch(ctx, reqs[i:min(i+1000, len(reqs))]); errs[0] != nil {
			b.Fatal(errs[0])
		}
	}
	return w.Root
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// benchTool calls a tool b.N times over the SDK's in-memory transport
// (JSON-RPC encoding both ways, schema validation, the api call) with
// args(i), and reports p50 and p95 latency.
func benchTool(b *testing.B, f *fixture, name string, args func(i int) map[string]any, check func(*sdk.CallToolResult)) {
	ctx := context.Background()
	// One warm-up call (caches, first resolution of the file).
	if _, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args(0)}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args(i)})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatalf("%s: %s", name, text(res))
		}
		check(res)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "p95-ms")
}

// benchMCP measures memories_at and search with files×funcs memories,
// first with the engine in process (--no-daemon), then through a daemon
// (started in this process; the MCP server reaches it over its unix
// socket as `gloss mcp` does).
func benchMCP(b *testing.B, files, funcs int) {
	start := time.Now()
	root := benchRepo(b, files, funcs)
	b.Logf("%d memories stored in %s", files*funcs, time.Since(start).Round(time.Millisecond))
	count := func(res *sdk.CallToolResult) int {
		m, _ := res.StructuredContent.(map[string]any)
		n, _ := m["count"].(float64)
		return int(n)
	}
	run := func(b *testing.B, impl api.Interface) {
		f := connect(b, impl, root)
		b.Run("memories_at", func(b *testing.B) {
			benchTool(b, f, "memories_at", func(i int) map[string]any {
				file, k := (i*7)%files, (i*13)%funcs
				return map[string]any{"path": fmt.Sprintf("p%d/f%d.go", file%20, file), "start_line": 1 + 8*k + 3, "end_line": 1 + 8*k + 8}
			}, func(res *sdk.CallToolResult) {
				if count(res) != 1 {
					b.Fatalf("memories_at: %d memories, want 1", count(res))
				}
			})
		})
		b.Run("search", func(b *testing.B) {
			benchTool(b, f, "search", func(i int) map[string]any {
				return map[string]any{"query": benchWords[i%len(benchWords)] + " " + benchWords[(i/3)%len(benchWords)], "limit": 10}
			}, func(res *sdk.CallToolResult) {
				if count(res) == 0 {
					b.Fatal("search: no hits")
				}
			})
		})
		// The api call alone, without MCP: the baseline of memories_at
		// (same files and lines, so equally warm).
		b.Run("memories_at_api", func(b *testing.B) {
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				file, k := (i*7)%files, (i*13)%funcs
				loc := api.Location{URI: api.PathToURI(fmt.Sprintf("%s/p%d/f%d.go", root, file%20, file)), Range: api.LinesRange(1+8*k+3, 1+8*k+8)}
				start := time.Now()
				res, err := impl.MemoriesAt(ctx, loc)
				lat = append(lat, time.Since(start))
				if err != nil || len(res.Memories) != 1 {
					b.Fatalf("MemoriesAt: %d memories, %v", len(res.Memories), err)
				}
			}
			b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(lat, 0.95).Microseconds())/1000, "p95-ms")
		})
		// Sync: what Watch does every poll when nothing changed (List,
		// compare fingerprints), after the first sync registered a
		// resource per memory.
		registered := false
		b.Run("sync", func(b *testing.B) {
			ctx := context.Background()
			if !registered {
				start := time.Now()
				if _, err := f.srv.Sync(ctx); err != nil {
					b.Fatal(err)
				}
				b.Logf("first sync (%d resources registered): %s", files*funcs, time.Since(start).Round(time.Millisecond))
				registered = true
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				up, err := f.srv.Sync(ctx)
				if err != nil || len(up) != 0 {
					b.Fatalf("sync: %d updates, %v", len(up), err)
				}
			}
		})
	}
	b.Run("engine", func(b *testing.B) {
		w, err := memory.Open(root, memory.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		run(b, &api.Engine{Host: api.Single{W: w}, IndexFirst: true})
	})
	b.Run("daemon", func(b *testing.B) {
		d, err := daemon.Start(daemon.Config{Dir: root, Log: io.Discard, Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		c, err := daemon.Dial(daemon.Target{Root: root, Version: "bench"}, daemon.VerbLSP)
		if err != nil {
			b.Fatal(err)
		}
		cl := lspconn.NewClient(c, lspconn.ClientOptions{})
		ctx := context.Background()
		if err := cl.Initialize(ctx, root, false); err != nil {
			b.Fatal(err)
		}
		defer cl.Close(ctx)
		// Settle the daemon's warm-up check before measuring.
		if _, err := (api.Client{Caller: cl}).Check(ctx, api.NoArgs{}); err != nil {
			b.Fatal(err)
		}
		run(b, api.Client{Caller: cl})
	})
}

// BenchmarkTools1K: memories_at and search with 1,000 memories (50 files ×
// 20 functions).
func BenchmarkTools1K(b *testing.B) { benchMCP(b, 50, 20) }

// BenchmarkTools10K: the same with 10,000 memories (200 files × 50
// functions); skipped with -short.
func BenchmarkTools10K(b *testing.B) {
	if testing.Short() {
		b.Skip("10,000 memories take a while to build; skipped with -short")
	}
	benchMCP(b, 200, 50)
}
