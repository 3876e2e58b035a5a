package memory

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/embed"
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
		units, _, err = w.trainingUnits()
		if err != nil {
			b.Fatal(err)
		}
		if m, err = embed.TrainBuiltin(context.Background(), slices.Values(units), embed.TrainOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(len(units)), "units")
	b.ReportMetric(float64(m.VocabSize()), "vocab")
}
