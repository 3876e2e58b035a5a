package memory_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
)

// scaleN is the number of memories of the scale benchmarks (issue #12):
// $GLOSS_BENCH_N, else 100,000, or 2,000 with -short (what CI runs).
func scaleN(b *testing.B) int {
	if s := os.Getenv("GLOSS_BENCH_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			b.Fatalf("GLOSS_BENCH_N=%q: want a number of memories ≥ 100", s)
		}
		return n
	}
	if testing.Short() {
		return 2000
	}
	return 100000
}

// scaleRepo builds an indexed synthetic workspace with one function per
// memory (files of 100 functions) and returns it with the requests
// anchoring one memory to each function.
func scaleRepo(b *testing.B, n int) (*memory.Workspace, []memory.RememberRequest) {
	testutil.Hermetic(b)
	repo, reqs := benchRepo(b, (n+99)/100, 100)
	w, err := memory.Open(repo, memory.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Index(context.Background()); err != nil {
		b.Fatal(err)
	}
	return w, reqs[:n]
}

// BenchmarkRememberBatchScale measures RememberBatch of N memories (see
// scaleN) into an empty store; memories/s is reported. Target (issue
// #12): ≥ 5,000 memories/s.
func BenchmarkRememberBatchScale(b *testing.B) {
	n := scaleN(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, reqs := scaleRepo(b, n)
		b.StartTimer()
		_, errs := w.RememberBatch(context.Background(), reqs)
		b.StopTimer()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(i+1), "memories/s")
		w.Close()
	}
}

// BenchmarkCheckScale measures the check `gloss check` runs
// (CheckViews: rescan, resolution of changed files, summaries) on a
// workspace of N memories (scaleN) when nothing changed. Target (issue
// #12): ≤ 2 s at 100,000.
func BenchmarkCheckScale(b *testing.B) {
	n := scaleN(b)
	w, reqs := scaleRepo(b, n)
	defer w.Close()
	ctx := context.Background()
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil {
		b.Fatal(errs[0])
	}
	if _, err := w.CheckViews(ctx); err != nil { // settle racy-clean files
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := w.CheckViews(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Views) != n || res.Resolved != 0 {
			b.Fatalf("check: %d memories, %d resolved", len(res.Views), res.Resolved)
		}
	}
}

// BenchmarkCheckScaleFirst measures the first check after RememberBatch
// of N memories (scaleN) into an empty store, which should cost what a
// check with nothing changed does (BenchmarkCheckScale): the ingest
// leaves the statuses it resolved, the files' check states and the
// summaries current, so the check re-resolves and decodes nothing.
func BenchmarkCheckScaleFirst(b *testing.B) {
	n := scaleN(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, reqs := scaleRepo(b, n)
		if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil {
			b.Fatal(errs[0])
		}
		b.StartTimer()
		res, err := w.CheckViews(ctx)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Views) != n || res.Resolved != 0 || len(res.Memories) != 0 {
			b.Fatalf("first check: %d memories, %d resolved, %d decoded", len(res.Views), res.Resolved, len(res.Memories))
		}
		w.Close()
	}
}

// BenchmarkRememberBatchScaleSpans is BenchmarkRememberBatchScale with
// one request in three a span of two lines inside its function's body
// (as cmd/glossbench generates them), which a stored token stream anchors
// without a parse of the file.
func BenchmarkRememberBatchScaleSpans(b *testing.B) {
	n := scaleN(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, reqs := scaleRepo(b, n)
		for k := range reqs {
			if k%3 == 2 {
				reqs[k].StartLine += 2 // "if a > b {", "return a - b + k"
				reqs[k].EndLine = reqs[k].StartLine + 1
			}
		}
		b.StartTimer()
		ms, errs := w.RememberBatch(context.Background(), reqs)
		b.StopTimer()
		for k, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
			if want := map[bool]string{true: memory.KindSpan, false: memory.KindSymbol}[k%3 == 2]; ms[k].Anchors[0].Kind != want {
				b.Fatalf("request %d: %s anchor, want %s", k, ms[k].Anchors[0].Kind, want)
			}
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds()*float64(i+1), "memories/s")
		w.Close()
	}
}
