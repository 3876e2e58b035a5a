package api_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/api"
	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// benchVocabulary gives the benchmark's memories and queries words to
// share.
var benchVocabulary = strings.Fields("retry cache token upload session quota shard lease backoff cursor schema index flush merge parse render buffer socket timeout deadline")

// BenchmarkFusedSearch10k measures gloss.search through the Engine (fused:
// memory BM25, vectors, graph, code BM25) on a workspace of 200 Go files
// with 10,000 functions and one memory on each, over a mix of word,
// identifier, filtered and file-seeded queries. It reports the p50 and
// p95 latency of the queries.
func BenchmarkFusedSearch10k(b *testing.B) {
	home := testutil.Hermetic(b)
	repo := testutil.InitRepo(b)
	files := map[string]string{"go.mod": "module example.com/bench\n"}
	var reqs []memory.RememberRequest
	v := benchVocabulary
	for f := 0; f < 200; f++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n", f%20)
		path := fmt.Sprintf("p%d/f%d.go", f%20, f)
		for k := 0; k < 50; k++ {
			n := f*50 + k
			fmt.Fprintf(&sb, "\n// %s%d handles the %s %s.\nfunc %s%d(a int) int {\n\treturn a + %d\n}\n", upper(v[n%20]), n, v[(n/20)%20], v[(n/7)%20], upper(v[n%20]), n, k)
			reqs = append(reqs, memory.RememberRequest{Symbol: fmt.Sprintf("%s%d", upper(v[n%20]), n),
				Text: fmt.Sprintf("The %s of %s must %s before the %s", v[(n/3)%20], v[(n/11)%20], v[(n/13)%20], v[(n/17)%20])})
		}
		files[path] = sb.String()
	}
	testutil.WriteFiles(b, repo, files)
	testutil.Commit(b, repo, "bench")
	ctx := context.Background()
	w, err := memory.Open(repo, memory.Options{Home: home})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Index(ctx); err != nil {
		b.Fatal(err)
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil {
		b.Fatal(errs[0])
	}
	e := &api.Engine{Host: api.Single{W: w}}
	queries := []api.SearchArgs{
		{Query: "retry token"},
		{Query: "cursor must flush before the deadline"},
		{Query: "Retry40"},
		{Query: "session quota", Filter: memory.Filter{Path: "p3/*"}},
		{Query: "upload", Kind: "symbol"},
		{Query: "lease backoff", File: filepath.Join(repo, "p5", "f5.go")},
		{Query: "schema index", Explain: true},
		{Query: "socket timeout", Kind: "memory", Filter: memory.Filter{Stale: "exclude"}},
	}
	for _, q := range queries { // warm the indexes
		if _, err := e.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := e.Search(ctx, queries[i%len(queries)])
		lat = append(lat, time.Since(start))
		if err != nil || len(res.Results) == 0 {
			b.Fatalf("search %+v: %d results, %v", queries[i%len(queries)], len(res.Results), err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// upper returns s with its first letter upper-cased (ASCII).
func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
