package memory

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/embed"
	"github.com/gloss-dev/gloss/internal/testutil"
)

// BenchmarkTrainBuiltin measures training the built-in embedder on the
// repository at $GLOSS_BENCH_REPO (skipped when unset), indexed first
// (not timed): reading the corpus from the store plus embed.TrainBuiltin.
//
//	GLOSS_BENCH_REPO=/tmp/cobra go test ./memory -run XXX -bench TrainBuiltin -benchtime 3x
func BenchmarkTrainBuiltin(b *testing.B) {
	repo := os.Getenv("GLOSS_BENCH_REPO")
	if repo == "" {
		b.Skip("GLOSS_BENCH_REPO not set")
	}
	b.Setenv("GLOSS_HOME", b.TempDir())
	w, err := Open(repo, Options{Embedder: "none", Force: true})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	st, err := w.Index(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var m *embed.Builtin
	var units []embed.Unit
	for i := 0; i < b.N; i++ {
		c, err := w.trainingUnits(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		units = c.units
		if m, err = embed.TrainBuiltin(context.Background(), slices.Values(units), embed.TrainOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(len(units)), "units")
	b.ReportMetric(float64(m.VocabSize()), "vocab")
}

// BenchmarkVectorSearchCold10k measures what a CLI process without a
// daemon pays for one vector search over 10,000 memories: open the
// workspace (Pebble), load the built-in model and the vector index, embed
// the query, search, close.
func BenchmarkVectorSearchCold10k(b *testing.B) {
	testutil.Hermetic(b)
	repo, reqs := benchRepoVec(b)
	ctx := context.Background()
	w, err := Open(repo, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Index(ctx); err != nil {
		b.Fatal(err)
	}
	if _, errs := w.RememberBatch(ctx, reqs); errs[0] != nil {
		b.Fatal(errs[0])
	}
	if _, err := w.Index(ctx); err != nil { // retrains on the memories
		b.Fatal(err)
	}
	if hits, err := w.VectorSearch(ctx, "work on memory", 20); err != nil || len(hits) == 0 {
		b.Fatal(len(hits), err)
	}
	_ = w.Close()
	// "none": opening and closing the workspace alone, for comparison.
	for _, emb := range []string{"none", "builtin"} {
		b.Run(emb, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				w, err := Open(repo, Options{Embedder: emb})
				if err != nil {
					b.Fatal(err)
				}
				hits, err := w.VectorSearch(ctx, "memory about work", 20)
				if err != nil || (emb == "builtin" && len(hits) == 0) {
					b.Fatal(len(hits), err)
				}
				_ = w.Close()
			}
		})
	}
}

// benchRepoVec writes 200 files of 50 functions with one remember
// request each (as memory_test's benchRepo).
func benchRepoVec(b *testing.B) (string, []RememberRequest) {
	repo := testutil.InitRepo(b)
	all := map[string]string{"go.mod": "module example.com/bench\n"}
	var reqs []RememberRequest
	for f := 0; f < 200; f++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n", f%20)
		for k := 0; k < 50; k++ {
			fmt.Fprintf(&sb, "\n// F%d_%d does work.\nfunc F%d_%d(a, b int) int {\n\treturn a - b + %d\n}\n", f, k, f, k, k)
			reqs = append(reqs, RememberRequest{Text: fmt.Sprintf("memory %d about work of F%d_%d", len(reqs), f, k), Symbol: fmt.Sprintf("F%d_%d", f, k)})
		}
		all[fmt.Sprintf("p%d/f%d.go", f%20, f)] = sb.String()
	}
	testutil.WriteFiles(b, repo, all)
	testutil.Commit(b, repo, "bench")
	return repo, reqs
}
