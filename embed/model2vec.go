package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/nlpodyssey/safetensors"
)

// Model2Vec is a static embedding model in the model2vec format
// (github.com/MinishLab/model2vec; e.g. the potion models): a directory
// with model.safetensors, whose tensor "embeddings" has one row per token
// id, and tokenizer.json, a Hugging Face WordPiece tokenizer. A text's
// vector is the mean of the rows of its tokens (unknown tokens dropped,
// at most 512 tokens, as model2vec's StaticModel.encode), L2-normalised.
type Model2Vec struct {
	id   string
	dim  int
	rows []float32 // vocabulary × dim
	tok  *wordPiece
}

var _ Embedder = (*Model2Vec)(nil)

// maxModel2VecTokens is model2vec's default max_length.
const maxModel2VecTokens = 512

// LoadModel2Vec loads the model2vec directory dir. Its model id is
// "model2vec:<directory name>@<first 12 hex digits of the SHA-256 of
// model.safetensors>". It fails with a message naming the file when a
// file is missing or malformed, the tensor "embeddings" is missing, not
// 2-dimensional or of a type other than F32, F16 or BF16, or the
// tokenizer is not WordPiece or names ids beyond the tensor's rows.
func LoadModel2Vec(dir string) (*Model2Vec, error) {
	stPath := filepath.Join(dir, "model.safetensors")
	data, err := os.ReadFile(stPath)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	st, err := safetensors.Deserialize(data)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %s: %w", stPath, err)
	}
	tv, ok := st.Tensor("embeddings")
	if !ok {
		return nil, fmt.Errorf("model2vec: %s has no tensor \"embeddings\" (has %v)", stPath, st.Names())
	}
	shape := tv.Shape()
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 || shape[1] > 1<<16 {
		return nil, fmt.Errorf("model2vec: %s: tensor \"embeddings\" has shape %v, want [vocabulary, dim]", stPath, shape)
	}
	rows, err := toFloat32(tv.DType(), tv.Data())
	if err != nil {
		return nil, fmt.Errorf("model2vec: %s: %w", stPath, err)
	}
	tokPath := filepath.Join(dir, "tokenizer.json")
	raw, err := os.ReadFile(tokPath)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	tok, err := parseWordPiece(raw)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %s: %w", tokPath, err)
	}
	if tok.maxID >= int(shape[0]) {
		return nil, fmt.Errorf("model2vec: %s names token id %d, but %s has %d rows", tokPath, tok.maxID, stPath, shape[0])
	}
	sum := sha256.Sum256(data)
	name := filepath.Base(filepath.Clean(dir))
	return &Model2Vec{id: "model2vec:" + name + "@" + hex.EncodeToString(sum[:])[:12], dim: int(shape[1]), rows: rows, tok: tok}, nil
}

// toFloat32 decodes little-endian tensor data.
func toFloat32(dt safetensors.DType, data []byte) ([]float32, error) {
	le := binary.LittleEndian
	switch dt {
	case safetensors.F32:
		out := make([]float32, len(data)/4)
		for i := range out {
			out[i] = math.Float32frombits(le.Uint32(data[i*4:]))
		}
		return out, nil
	case safetensors.F16, safetensors.BF16:
		out := make([]float32, len(data)/2)
		for i := range out {
			h := le.Uint16(data[i*2:])
			if dt == safetensors.BF16 {
				out[i] = math.Float32frombits(uint32(h) << 16)
			} else {
				out[i] = halfToFloat(h)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("tensor \"embeddings\" of type %s, want F32, F16 or BF16", dt)
}

// halfToFloat converts an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(frac) / 1024 / 16384
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// Model implements Embedder.
func (m *Model2Vec) Model() string { return m.id }

// Dim implements Embedder.
func (m *Model2Vec) Dim() int { return m.dim }

// Embed implements Embedder; a text without known tokens gets the zero
// vector. It fails only when ctx ends.
func (m *Model2Vec) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, m.dim)
		ids := m.tok.encode(t, maxModel2VecTokens)
		for _, id := range ids {
			axpy(1, m.rows[id*m.dim:(id+1)*m.dim], v)
		}
		Normalize(v) // the mean's direction
		out[i] = v
	}
	return out, nil
}

// tokenizerJSON is the part of a Hugging Face tokenizer.json gloss reads.
type tokenizerJSON struct {
	Normalizer *struct {
		Type         string `json:"type"`
		Lowercase    *bool  `json:"lowercase"`
		StripAccents *bool  `json:"strip_accents"`
	} `json:"normalizer"`
	Model struct {
		Type                    string         `json:"type"`
		UnkToken                string         `json:"unk_token"`
		ContinuingSubwordPrefix *string        `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int            `json:"max_input_chars_per_word"`
		Vocab                   map[string]int `json:"vocab"`
	} `json:"model"`
}
