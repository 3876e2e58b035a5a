package importgit_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/internal/testutil"
	"github.com/gloss-dev/gloss/memory"
	"github.com/gloss-dev/gloss/memory/importgit"
)

// BenchmarkImportGitRepo imports the last 200 commits (GLOSS_BENCH_LIMIT
// to change) of the clone named by GLOSS_BENCH_REPO (skipped when unset)
// into a fresh GLOSS_HOME, indexing the working tree first (not timed),
// and reports commits/s and the peak Go heap in use (runtime.MemStats
// HeapInuse sampled every 50 ms, MiB). Run with -benchtime=1x;
// GLOSS_BENCH_CPUPROF=file writes a CPU profile of the import alone and
// GLOSS_BENCH_PEAKPROF=file the heap profile at the peak, to see where
// the import spends time and memory.
func BenchmarkImportGitRepo(b *testing.B) {
	repo := os.Getenv("GLOSS_BENCH_REPO")
	if repo == "" {
		b.Skip("GLOSS_BENCH_REPO not set")
	}
	for b.Loop() {
		testutil.Hermetic(b)
		w, err := memory.Open(repo, memory.Options{})
		if err != nil {
			b.Fatal(err)
		}
		limit := 200
		if n, err := strconv.Atoi(os.Getenv("GLOSS_BENCH_LIMIT")); err == nil {
			limit = n
		}
		if _, err := w.Index(context.Background()); err != nil {
			b.Fatal(err)
		}
		if p := os.Getenv("GLOSS_BENCH_CPUPROF"); p != "" {
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
		var peak atomic.Uint64
		prof := os.Getenv("GLOSS_BENCH_PEAKPROF")
		var written uint64
		stop := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
				if prof != "" && ms.HeapInuse > written*11/10 {
					writeHeap(b, prof)
					written = ms.HeapInuse
				}
			}
		}()
		res, err := importgit.Run(context.Background(), w, importgit.Options{Limit: limit})
		close(stop)
		w.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Commits)/res.Elapsed.Seconds(), "commits/s")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	}
}

// writeHeap writes the heap profile (as of the last GC) to path.
func writeHeap(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Error(err)
		return
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Error(err)
	}
}
