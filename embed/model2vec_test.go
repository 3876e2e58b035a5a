package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlpodyssey/safetensors"
)

// writeModel2VecDir writes a model2vec directory "potion-tiny" holding
// tensors and a WordPiece tokenizer of 9 tokens: "Retrying caps, Café!"
// is the ids 2 3 4 5 7 8.
func writeModel2VecDir(t *testing.T, tensors map[string]safetensors.TensorView) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "potion-tiny")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	vocab := map[string]int{"[PAD]": 0, "[UNK]": 1, "retry": 2, "##ing": 3, "cap": 4, "##s": 5, "max": 6, ",": 7, "cafe": 8}
	tok := map[string]any{
		"normalizer":    map[string]any{"type": "BertNormalizer", "lowercase": true, "strip_accents": nil},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model":         map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
	}
	raw, _ := json.Marshal(tok)
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	buf, err := safetensors.Serialize(tensors, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), buf, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func tensor(t *testing.T, dt safetensors.DType, shape []uint64, data []byte) safetensors.TensorView {
	t.Helper()
	tv, err := safetensors.NewTensorView(dt, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return tv
}

func i8s(v ...int8) []byte {
	out := make([]byte, len(v))
	for i, x := range v {
		out[i] = byte(x)
	}
	return out
}

func f64s(v ...float64) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

func f32s(v ...float32) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

func i64s(v ...int64) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, uint64(x))
	}
	return out
}

// TestModel2VecWeightsAndMapping checks the tensors model2vec writes for
// weighted and vocabulary-quantized models (model2vec's persistence
// save_pretrained: "weights", "mapping"; quantize_to int8) against
// StaticModel.encode's definition: mean of embeddings[mapping[id]] ·
// weights[id], normalised.
func TestModel2VecWeightsAndMapping(t *testing.T) {
	// 3 int8 rows; token id i → row i mod 3, weight i/2.
	rows := i8s(10, 0, 0, 0, 0, 20, 0, 0, 0, 0, 30, 5)
	mapping := i64s(0, 1, 2, 0, 1, 2, 0, 1, 2)
	weights := f64s(0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4)
	dir := writeModel2VecDir(t, map[string]safetensors.TensorView{
		"embeddings": tensor(t, safetensors.I8, []uint64{3, 4}, rows),
		"mapping":    tensor(t, safetensors.I64, []uint64{9}, mapping),
		"weights":    tensor(t, safetensors.F64, []uint64{9}, weights),
	})
	m, err := LoadModel2Vec(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The id tells these vectors from the unweighted ones of gloss before
	// the tensors were read, so an index built with those is rebuilt.
	if !strings.HasPrefix(m.Model(), "model2vec:potion-tiny@") || !strings.HasSuffix(m.Model(), "+weights") {
		t.Fatalf("model id %q", m.Model())
	}
	vs, err := m.Embed(context.Background(), []string{"Retrying caps, Café!"})
	if err != nil {
		t.Fatal(err)
	}
	// ids 2 3 4 5 7 8 → rows 2 0 1 2 1 2, weights 1 1.5 2 2.5 3.5 4:
	// (0,0,30,5)+(15,0,0,0)+(0,40,0,0)+(0,0,75,12.5)+(0,70,0,0)+(0,0,120,20)
	want := unit([]float32{15, 110, 225, 37.5})
	if !close32(vs[0], want) {
		t.Fatalf("vector %v, want %v", vs[0], want)
	}
	// The same model written out in full (row i = rows[mapping[i]] ·
	// weights[i], F32, no "weights" or "mapping") embeds alike; so does
	// sentence-transformers' tensor name.
	var full []float32
	for id := 0; id < 9; id++ {
		r := id % 3
		for j := 0; j < 4; j++ {
			full = append(full, float32(int8(rows[r*4+j]))*float32(id)/2)
		}
	}
	dir = writeModel2VecDir(t, map[string]safetensors.TensorView{
		"embedding.weight": tensor(t, safetensors.F32, []uint64{9, 4}, f32s(full...)),
	})
	if m, err = LoadModel2Vec(dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.Model(), "+") {
		t.Fatalf("model id %q of a model without weights or mapping", m.Model())
	}
	if vs, err = m.Embed(context.Background(), []string{"Retrying caps, Café!"}); err != nil || !close32(vs[0], want) {
		t.Fatalf("expanded model: vector %v (err %v), want %v", vs, err, want)
	}

	// Malformed tensors fail naming the tensor.
	embeddings := tensor(t, safetensors.I8, []uint64{3, 4}, rows)
	for name, tensors := range map[string]map[string]safetensors.TensorView{
		"mapping": { // row 3 of 3
			"embeddings": embeddings,
			"mapping":    tensor(t, safetensors.I64, []uint64{9}, i64s(0, 1, 2, 3, 1, 2, 0, 1, 2)),
		},
		"mapping ": { // too short for token id 8
			"embeddings": embeddings,
			"mapping":    tensor(t, safetensors.I64, []uint64{8}, i64s(0, 1, 2, 0, 1, 2, 0, 1)),
		},
		"weights": { // too short for token id 8
			"embeddings": tensor(t, safetensors.F32, []uint64{9, 1}, f32s(1, 2, 3, 4, 5, 6, 7, 8, 9)),
			"weights":    tensor(t, safetensors.F64, []uint64{5}, f64s(1, 1, 1, 1, 1)),
		},
		"weights ": { // not a float
			"embeddings": tensor(t, safetensors.F32, []uint64{9, 1}, f32s(1, 2, 3, 4, 5, 6, 7, 8, 9)),
			"weights":    tensor(t, safetensors.I8, []uint64{9}, i8s(1, 1, 1, 1, 1, 1, 1, 1, 1)),
		},
		"embeddings": { // U8
			"embeddings": tensor(t, safetensors.U8, []uint64{9, 1}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}),
		},
		"rows": { // 3 rows, no mapping
			"embeddings": embeddings,
		},
	} {
		_, err := LoadModel2Vec(writeModel2VecDir(t, tensors))
		if want := strings.TrimSpace(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %q", name, err, want)
		}
	}
}

// TestModel2VecUnigramTokenizer: a tokenizer other than WordPiece (here
// model2vec's Unigram, whose vocabulary is a list of [token, score]
// pairs) is refused by its name, not as malformed JSON.
func TestModel2VecUnigramTokenizer(t *testing.T) {
	dir := writeTinyModel2Vec(t, safetensors.F32)
	tok := `{"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁hello", -1.5]]}}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModel2Vec(dir); err == nil || !strings.Contains(err.Error(), `"Unigram", only WordPiece`) {
		t.Fatalf("err %v, want the Unigram tokenizer named", err)
	}
}

// TestModel2VecReference compares the loader with model2vec's own
// vectors, when $GLOSS_MODEL2VEC_RS_FIXTURES names the directory
// tests/fixtures of model2vec-rs (github.com/MinishLab/model2vec-rs, MIT;
// not shipped here): its test models are distilled from
// BAAI/bge-base-en-v1.5 (29,528 WordPiece tokens, 2 dimensions) and saved
// as F32, F16, int8 and under sentence-transformers' tensor name, and
// embeddings_short.json and embeddings_long.json hold the vectors
// model2vec's Python StaticModel.encode gives "hello world" and 1,000 ×
// "hello" (512 tokens) with the F32 model.
func TestModel2VecReference(t *testing.T) {
	root := os.Getenv("GLOSS_MODEL2VEC_RS_FIXTURES")
	if root == "" {
		t.Skip("GLOSS_MODEL2VEC_RS_FIXTURES not set")
	}
	texts := []string{"hello world", strings.TrimSpace(strings.Repeat("hello ", 1000))}
	var want [][]float32
	for _, f := range []string{"embeddings_short.json", "embeddings_long.json"} {
		raw, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		var v [][]float32
		if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
			t.Fatalf("%s: %v", f, err)
		}
		want = append(want, v[0])
	}
	for model, tol := range map[string]float64{
		"test-model-float32": 1e-6, "test-model-sentence-transformers": 1e-6,
		"test-model-float16": 1e-3, "test-model-int8": 1e-2, // quantised copies
	} {
		m, err := LoadModel2Vec(filepath.Join(root, model))
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			for j := range want[i] {
				if d := math.Abs(float64(got[i][j] - want[i][j])); d > tol || len(got[i]) != len(want[i]) {
					t.Fatalf("%s, %.20q: %v, model2vec %v", model, texts[i], got[i], want[i])
				}
			}
		}
	}
}
