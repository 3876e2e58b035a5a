package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/viterin/vek/vek32"

	"github.com/gloss-dev/gloss/embed"
)

// randomUnitRows returns n random unit vectors of length dim.
func randomUnitRows(n, dim int) [][]float32 {
	rng := rand.New(rand.NewPCG(7, 8))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		embed.Normalize(v)
		out[i] = v
	}
	return out
}

// fixedEmbedder returns precomputed vectors by text ("#<row>").
type fixedEmbedder struct{ rows [][]float32 }

func (f fixedEmbedder) Model() string { return "fixed" }
func (f fixedEmbedder) Dim() int      { return len(f.rows[0]) }
func (f fixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		var r int
		_, _ = fmt.Sscanf(t, "#%d", &r)
		out[i] = f.rows[r]
	}
	return out, nil
}

func fixedIndex(b *testing.B, n, dim int) *Vectors {
	rows := randomUnitRows(n, dim)
	v, _, err := OpenVectors(filepath.Join(b.TempDir(), "vectors"), fixedEmbedder{rows})
	if err != nil {
		b.Fatal(err)
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("m%07d", i), Fields: map[string]string{VectorText: fmt.Sprintf("#%d", i)}}
	}
	if err := v.Rebuild(docs, 1); err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkVectorSearch measures one exact top-20 search over n rows of
// dim float32 (brute force, vek SIMD dot products).
func BenchmarkVectorSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, dim := range []int{128, 192, 256} {
			b.Run(fmt.Sprintf("%dx%d", n, dim), func(b *testing.B) {
				v := fixedIndex(b, n, dim)
				q := randomUnitRows(1, dim)[0]
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := v.SearchVector(q, 20); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDot compares vek's SIMD dot product with a plain Go loop, for
// the choice of vek in SearchVector.
func BenchmarkDot(b *testing.B) {
	rows := randomUnitRows(2, 128)
	b.Run("vek", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = vek32.Dot(rows[0], rows[1])
		}
	})
	b.Run("loop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var s float32
			for j := range rows[0] {
				s += rows[0][j] * rows[1][j]
			}
			_ = s
		}
	})
}

// BenchmarkVectorsOpen measures opening (reading and checking) a saved
// index of n rows of 128, which a CLI process without a daemon pays per
// search; it reports the files' size. The "+log" case adds 10,000 rows
// by 100 updates of 100 rows, as a daemon would: they are in the log
// that opening replays, as far as Update has not compacted it.
func BenchmarkVectorsOpen(b *testing.B) {
	for _, c := range []struct {
		n, logged int
	}{{10_000, 0}, {100_000, 0}, {100_000, 10_000}} {
		name := fmt.Sprint(c.n)
		if c.logged > 0 {
			name += fmt.Sprintf("+log%d", c.logged)
		}
		b.Run(name, func(b *testing.B) {
			n := c.n
			v := fixedIndex(b, n+c.logged, 128)
			if c.logged > 0 {
				v = loggedIndex(b, v, n, c.logged)
			}
			st, err := os.Stat(filepath.Join(v.dir, vecBaseFile))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Size())/(1<<20), "MiB-on-disk")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, ok, err := OpenVectors(v.dir, v.emb); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

// BenchmarkVectorsBuildBuiltin measures building the vector index of n
// memories with the built-in embedder (trained on this repository's Go
// sources, one unit per line): embedding n texts of 40 words plus
// writing the base file; it reports the files' size.
func BenchmarkVectorsBuildBuiltin(b *testing.B) {
	var units []embed.Unit
	for _, src := range benchSources(b) {
		for _, line := range splitLinesBench(string(src)) {
			units = append(units, embed.Unit{Body: line})
		}
	}
	model, err := embed.TrainBuiltin(context.Background(), func(yield func(embed.Unit) bool) {
		for _, u := range units {
			if !yield(u) {
				return
			}
		}
	}, embed.TrainOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var words []string
	for _, u := range units[:min(len(units), 5000)] {
		words = append(words, embed.Words(u.Body)...)
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			docs := make([]Doc, n)
			for i := range docs {
				text := ""
				for k := 0; k < 40; k++ {
					text += words[rng.IntN(len(words))] + " "
				}
				docs[i] = Doc{ID: fmt.Sprintf("m%07d", i), Fields: map[string]string{VectorText: text}}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				dir := filepath.Join(b.TempDir(), "vectors")
				v, _, err := OpenVectors(dir, model)
				if err != nil {
					b.Fatal(err)
				}
				if err := v.Rebuild(docs, 1); err != nil {
					b.Fatal(err)
				}
				st, _ := os.Stat(filepath.Join(dir, vecBaseFile))
				b.ReportMetric(float64(st.Size())/(1<<20), "MiB-on-disk")
			}
		})
	}
}

func splitLinesBench(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// loggedIndex rewrites the base of v (n+logged rows) to its first n rows
// and adds the other logged rows by updates of 100 rows (the log).
func loggedIndex(b *testing.B, v *Vectors, n, logged int) *Vectors {
	docs := make([]Doc, n+logged)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("m%07d", i), Fields: map[string]string{VectorText: fmt.Sprintf("#%d", i)}}
	}
	if err := v.Rebuild(docs[:n], 1); err != nil {
		b.Fatal(err)
	}
	for i, gen := n, uint64(2); i < len(docs); i, gen = i+100, gen+1 {
		if err := v.Update(docs[i:min(i+100, len(docs))], nil, gen); err != nil {
			b.Fatal(err)
		}
	}
	if v.logRecs == 0 {
		b.Fatal("the updates were compacted into the base")
	}
	return v
}

// modelOnly is an embedder that only names a model, to open an existing
// vector index without embedding anything (BenchmarkVectorSearchDir).
type modelOnly struct{ model string }

func (m modelOnly) Model() string { return m.model }
func (m modelOnly) Dim() int      { return 0 }
func (m modelOnly) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("modelOnly embeds nothing")
}

// BenchmarkVectorSearchDir measures one exact top-40 search (the fused
// search's depth) over a real vector index: $GLOSS_BENCH_VECTORS names a
// copy of a gloss home's projects/ID/vectors directory and
// $GLOSS_BENCH_MODEL its model id (vectors/embedder.json's "model").
// The queries are 64 of its rows, each moved by Gaussian noise of σ 0.05
// per dimension and normalized, so their neighbours are near as a real
// query's are. Skipped when the variables are unset.
func BenchmarkVectorSearchDir(b *testing.B) {
	dir, model := os.Getenv("GLOSS_BENCH_VECTORS"), os.Getenv("GLOSS_BENCH_MODEL")
	if dir == "" || model == "" {
		b.Skip("GLOSS_BENCH_VECTORS and GLOSS_BENCH_MODEL unset")
	}
	v, ok, err := OpenVectors(dir, modelOnly{model})
	if err != nil || !ok {
		b.Fatalf("open %s as %s: ok %v, %v", dir, model, ok, err)
	}
	defer v.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var qs [][]float32
	for range 64 {
		q := append([]float32(nil), v.st.row(rng.IntN(v.st.rows()))...)
		for j := range q {
			q[j] += float32(0.05 * rng.NormFloat64())
		}
		embed.Normalize(q)
		qs = append(qs, q)
	}
	if _, err := v.SearchVector(qs[0], 40); err != nil { // the first scan verifies the rows
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.SearchVector(qs[i%len(qs)], 40); err != nil {
			b.Fatal(err)
		}
	}
}
