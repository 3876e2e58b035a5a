package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/nlpodyssey/safetensors"
)

// Model2Vec is a static embedding model in the model2vec format
// (github.com/MinishLab/model2vec; e.g. the potion models): a directory
// with model.safetensors and tokenizer.json, a Hugging Face WordPiece
// tokenizer. model.safetensors holds the tensor "embeddings" (or
// "embedding.weight", sentence-transformers' StaticEmbedding name), rows ×
// dim, and optionally model2vec's "weights" (one weight per token id) and
// "mapping" (vocabulary quantization: the row of each token id). A text's
// vector is as model2vec's StaticModel.encode computes it: the mean of
// rows[mapping[id]] · weights[id] over its token ids (unknown tokens
// dropped, at most 512 tokens), L2-normalised. The tokenizer's
// added_tokens are not matched (model2vec adds vocabulary words that the
// pre-tokenizer splits, e.g. "a.b", there): such a text is split into
// WordPiece tokens instead, as for any other word.
type Model2Vec struct {
	id      string
	dim     int
	rows    []float32 // rows × dim
	weights []float32 // by token id; nil: every token weighs 1
	mapping []int32   // token id → row; nil: the id is the row
	tok     *wordPiece
}

var _ Embedder = (*Model2Vec)(nil)

// maxModel2VecTokens is model2vec's default max_length.
const maxModel2VecTokens = 512

// LoadModel2Vec loads the model2vec directory dir. Its model id is
// "model2vec:<directory name>@<first 12 hex digits of the SHA-256 of
// model.safetensors>", followed by "+weights" when the file has "weights"
// or "mapping" (gloss before 2026-11-26 ignored them, so the id changes
// and a vector index built with those vectors is rebuilt). It fails with a message naming the file when a
// file is missing or malformed; when neither "embeddings" nor
// "embedding.weight" is there, or it is not 2-dimensional, or of a type
// other than F32, F16, BF16, F64 or I8 (model2vec's quantize_to int8:
// one scale for the whole matrix, which the normalisation cancels); when
// "weights" is not a float vector with an entry for every token id, or
// "mapping" not an I64 or I32 vector with a row in range for every token
// id; or when the tokenizer is not WordPiece or, without a mapping, names
// ids beyond the tensor's rows.
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
	name := "embeddings"
	tv, ok := st.Tensor(name)
	if !ok {
		name = "embedding.weight"
		if tv, ok = st.Tensor(name); !ok {
			return nil, fmt.Errorf("model2vec: %s has no tensor \"embeddings\" (has %v)", stPath, st.Names())
		}
	}
	shape := tv.Shape()
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 || shape[1] > 1<<16 {
		return nil, fmt.Errorf("model2vec: %s: tensor %q has shape %v, want [vocabulary, dim]", stPath, name, shape)
	}
	rows, err := toFloat32(tv.DType(), tv.Data(), true)
	if err != nil {
		return nil, fmt.Errorf("model2vec: %s: tensor %q: %w", stPath, name, err)
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
	m := &Model2Vec{dim: int(shape[1]), rows: rows, tok: tok}
	if tv, ok := st.Tensor("weights"); ok {
		if err = tokenVector(tv, tok.maxID); err == nil {
			m.weights, err = toFloat32(tv.DType(), tv.Data(), false)
		}
		if err != nil {
			return nil, fmt.Errorf("model2vec: %s: tensor \"weights\": %w", stPath, err)
		}
	}
	if tv, ok := st.Tensor("mapping"); ok {
		if err = tokenVector(tv, tok.maxID); err == nil {
			m.mapping, err = toRows(tv.DType(), tv.Data(), int(shape[0]))
		}
		if err != nil {
			return nil, fmt.Errorf("model2vec: %s: tensor \"mapping\": %w", stPath, err)
		}
	} else if tok.maxID >= int(shape[0]) {
		return nil, fmt.Errorf("model2vec: %s names token id %d, but %s has %d rows", tokPath, tok.maxID, stPath, shape[0])
	}
	sum := sha256.Sum256(data)
	m.id = "model2vec:" + filepath.Base(filepath.Clean(dir)) + "@" + hex.EncodeToString(sum[:])[:12]
	if m.weights != nil || m.mapping != nil {
		m.id += "+weights"
	}
	return m, nil
}

// tokenVector checks that tv is a vector with an entry for every token id
// up to maxID.
func tokenVector(tv safetensors.TensorView, maxID int) error {
	if shape := tv.Shape(); len(shape) != 1 || shape[0] <= uint64(maxID) {
		return fmt.Errorf("shape %v, want [%d] or more (one entry per token id)", shape, maxID+1)
	}
	return nil
}

// toFloat32 decodes little-endian tensor data of a float type, or of I8
// when allowI8 is true.
func toFloat32(dt safetensors.DType, data []byte, allowI8 bool) ([]float32, error) {
	le := binary.LittleEndian
	switch {
	case dt == safetensors.F32:
		out := make([]float32, len(data)/4)
		for i := range out {
			out[i] = math.Float32frombits(le.Uint32(data[i*4:]))
		}
		return out, nil
	case dt == safetensors.F64:
		out := make([]float32, len(data)/8)
		for i := range out {
			out[i] = float32(math.Float64frombits(le.Uint64(data[i*8:])))
		}
		return out, nil
	case dt == safetensors.I8 && allowI8:
		out := make([]float32, len(data))
		for i, b := range data {
			out[i] = float32(int8(b))
		}
		return out, nil
	case dt == safetensors.F16, dt == safetensors.BF16:
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
	if allowI8 {
		return nil, fmt.Errorf("type %s, want F32, F16, BF16, F64 or I8", dt)
	}
	return nil, fmt.Errorf("type %s, want F32, F16, BF16 or F64", dt)
}

// toRows decodes a little-endian I64 or I32 vector of row numbers, each
// below rows.
func toRows(dt safetensors.DType, data []byte, rows int) ([]int32, error) {
	le := binary.LittleEndian
	var out []int32
	switch dt {
	case safetensors.I64:
		out = make([]int32, len(data)/8)
		for i := range out {
			v := int64(le.Uint64(data[i*8:]))
			if v < 0 || v >= int64(rows) {
				return nil, fmt.Errorf("token id %d maps to row %d, want 0 to %d", i, v, rows-1)
			}
			out[i] = int32(v)
		}
	case safetensors.I32:
		out = make([]int32, len(data)/4)
		for i := range out {
			v := int32(le.Uint32(data[i*4:]))
			if v < 0 || int(v) >= rows {
				return nil, fmt.Errorf("token id %d maps to row %d, want 0 to %d", i, v, rows-1)
			}
			out[i] = v
		}
	default:
		return nil, fmt.Errorf("type %s, want I64 or I32", dt)
	}
	return out, nil
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
	tmp := make([]float32, m.dim) // addScaled's products
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, m.dim)
		for _, id := range m.tok.encode(t, maxModel2VecTokens) {
			row, w := id, float32(1)
			if m.mapping != nil {
				row = int(m.mapping[id])
			}
			if m.weights != nil {
				w = m.weights[id]
			}
			addScaled(w, m.rows[row*m.dim:(row+1)*m.dim], v, tmp)
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
		Type                    string          `json:"type"`
		UnkToken                string          `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage `json:"vocab"` // WordPiece: token → id; Unigram: [token, score] pairs
	} `json:"model"`
}
