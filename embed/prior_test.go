package embed

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPriorRoundTripQuantized(t *testing.T) {
	b, err := TrainBuiltin(context.Background(), topicUnits(), TrainOptions{Dim: 16, NoPrior: true})
	if err != nil {
		t.Fatal(err)
	}
	data := MarshalPrior(b, "test corpus")
	if !slices.Equal(data, MarshalPrior(b, "test corpus")) {
		t.Fatal("MarshalPrior is not deterministic")
	}
	p, err := UnmarshalPrior(data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Model(), "prior:test corpus@") || p.Dim() != 16 || p.VocabSize() != b.VocabSize() {
		t.Fatalf("decoded %s dim %d vocab %d", p.Model(), p.Dim(), p.VocabSize())
	}
	// int8 per dimension: a unit row's error is at most √dim·scale/2 per
	// row before re-normalisation; on these rows the cosine with the
	// original stays above 0.99.
	for r := range b.vocab {
		orig, got := b.vecs[r*16:(r+1)*16], p.wordRow(r, nil)
		if norm(orig) == 0 {
			continue
		}
		if c := dot(orig, got); c < 0.99 {
			t.Errorf("word %s: cos(original, quantized) = %.4f, want ≥ 0.99", b.vocab[r], c)
		}
	}
	for _, bad := range [][]byte{nil, data[:len(data)-9], append([]byte("GLOSSPR0"), data[8:]...)} {
		if _, err := UnmarshalPrior(bad); !errors.Is(err, ErrCorruptModel) {
			t.Errorf("bad prior of %d bytes: err %v, want ErrCorruptModel", len(bad), err)
		}
	}
}

// TestEmbeddedPrior checks the prior shipped in prior.bin: it decodes,
// fits the size budget, and relates general words that a workspace of a
// few files would not.
func TestEmbeddedPrior(t *testing.T) {
	p, err := Prior()
	if err != nil {
		t.Fatal(err)
	}
	if p == nil {
		t.Skip("built without a prior (empty prior.bin)")
	}
	if len(priorBin) > 4<<20 {
		t.Errorf("prior.bin is %d bytes, budget 4 MiB", len(priorBin))
	}
	if !strings.HasPrefix(p.Model(), "prior:go-src go") {
		t.Errorf("prior model %q, want prior:go-src go…", p.Model())
	}
	vec := func(w string) []float32 {
		v, _ := p.wordVector(word(w))
		if v == nil {
			t.Fatalf("no prior vector for %q", w)
		}
		return v
	}
	for _, c := range []struct{ w, near, far string }{
		{"sleep", "wait", "parse"},
		{"credential", "password", "pixel"},
		{"timeout", "deadline", "rounding"},
	} {
		if dot(vec(c.w), vec(c.near)) <= dot(vec(c.w), vec(c.far)) {
			t.Errorf("prior: cos(%s, %s) = %.3f ≤ cos(%s, %s) = %.3f", c.w, c.near, dot(vec(c.w), vec(c.near)), c.w, c.far, dot(vec(c.w), vec(c.far)))
		}
	}
}

// TestBuiltinWithPrior checks the concatenation: dimension, weight
// (cos = (1−w)·cos_workspace + w·cos_prior), model id, and that a saved
// model reloads with the same prior and refuses another.
func TestBuiltinWithPrior(t *testing.T) {
	pb, err := TrainBuiltin(context.Background(), topicUnits(), TrainOptions{Dim: 8, NoPrior: true, Window: 2})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := UnmarshalPrior(MarshalPrior(pb, "test"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := TrainBuiltin(context.Background(), topicUnits(), TrainOptions{Dim: 16, NoPrior: true})
	if err != nil {
		t.Fatal(err)
	}
	b := &Builtin{dim: ws.dim, words: ws.words, vocab: ws.vocab, counts: ws.counts, total: ws.total, vecs: ws.vecs, common: ws.common}
	b.prior, b.priorWeight = pr, 0.3
	if err := b.setID(); err != nil {
		t.Fatal(err)
	}
	if b.Dim() != 24 || !strings.Contains(b.Model(), "ppmi-svd-16+prior-8@") || b.Model() == ws.Model() {
		t.Fatalf("combined model %s dim %d (workspace %s)", b.Model(), b.Dim(), ws.Model())
	}
	x, y := "retry attempts throttled", "database connection pool"
	want := 0.7*float64(dot(ws.EmbedText(x), ws.EmbedText(y))) + 0.3*float64(dot(pr.EmbedText(x), pr.EmbedText(y)))
	if got := float64(dot(b.EmbedText(x), b.EmbedText(y))); math.Abs(got-want) > 1e-5 {
		t.Errorf("cos with prior = %.6f, want 0.7·cos_ws + 0.3·cos_prior = %.6f", got, want)
	}
	// A saved model records its prior's id; loading needs the same prior.
	path := filepath.Join(t.TempDir(), "builtin.model")
	if err := b.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBuiltin(path); !errors.Is(err, ErrCorruptModel) || !strings.Contains(err.Error(), "prior") {
		t.Fatalf("model trained with a prior gloss does not embed: err %v, want ErrCorruptModel naming the prior", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// TestTrainBuiltinAttachesPrior checks that the default training carries
// the embedded prior and that Save/LoadBuiltin restore it.
func TestTrainBuiltinAttachesPrior(t *testing.T) {
	p, err := Prior()
	if err != nil || p == nil {
		t.Skip("no embedded prior")
	}
	b, err := TrainBuiltin(context.Background(), topicUnits(), TrainOptions{Dim: 16})
	if err != nil {
		t.Fatal(err)
	}
	if b.PriorModel() != p.Model() || b.Dim() != 16+p.Dim() {
		t.Fatalf("trained prior %q dim %d; want %q dim %d", b.PriorModel(), b.Dim(), p.Model(), 16+p.Dim())
	}
	path := filepath.Join(t.TempDir(), "builtin.model")
	if err := b.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadBuiltin(path)
	if err != nil {
		t.Fatal(err)
	}
	text := "how quickly does a stolen credential stop working"
	if l.Model() != b.Model() || !slices.Equal(l.EmbedText(text), b.EmbedText(text)) {
		t.Fatalf("reloaded model %s embeds differently from %s", l.Model(), b.Model())
	}
	if n := norm(b.EmbedText("password")); math.Abs(n-1) > 1e-5 {
		t.Errorf("a word only the prior knows: norm %.4f, want 1", n)
	}
}

// BenchmarkPriorDecode measures decoding the embedded prior (what the
// first embedding of a process pays once):
//
//	go test ./embed -run XXX -bench PriorDecode -benchtime 20x
func BenchmarkPriorDecode(b *testing.B) {
	if len(priorBin) == 0 {
		b.Skip("no embedded prior")
	}
	for b.Loop() {
		if _, err := UnmarshalPrior(priorBin); err != nil {
			b.Fatal(err)
		}
	}
}
