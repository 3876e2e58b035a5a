package embed

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // prior.bin
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync"
)

//go:generate go run ./internal/genprior -o prior.bin

// priorBin is the general-domain prior shipped with gloss, written by
// internal/genprior from the Go distribution's source (see Prior).
//
//go:embed prior.bin
var priorBin []byte

// priorMagic starts a saved prior (version 1 of the layout).
const priorMagic = "GLOSSPR1"

// DefaultPriorWeight is the share w of the prior in the cosine of two
// texts embedded by a Builtin with a prior: their vectors are the
// concatenation [√(1−w)·workspace, √w·prior] of two unit vectors, so
// cos = (1−w)·cos_workspace + w·cos_prior (concatenation meta-embedding,
// Yin & Schütze 2016). 0.5 weighs both sources equally.
const DefaultPriorWeight = 0.5

var (
	priorOnce sync.Once
	prior     *Builtin
	priorErr  error
)

// Prior returns the general-domain prior embedded in gloss: static word
// vectors trained by internal/genprior on the comments and identifiers of
// the Go distribution's source (PPMI with context-distribution smoothing
// and truncated SVD, Levy, Goldberg & Dagan 2015), quantized to int8 per
// dimension. It knows general English about code ("credential" near
// "token", "pause" near "sleep") that a small workspace cannot teach. It
// returns nil and no error when gloss was built without one (an empty
// prior.bin), and ErrCorruptModel (wrapped) when the embedded bytes do
// not decode.
func Prior() (*Builtin, error) {
	priorOnce.Do(func() {
		if len(priorBin) == 0 {
			return
		}
		prior, priorErr = unmarshalPriorSum(priorBin, priorBinSum)
		if priorErr != nil {
			priorErr = fmt.Errorf("prior: %w: %v", ErrCorruptModel, priorErr)
		}
	})
	return prior, priorErr
}

// priorBinSum is priorSum(priorBin), so that a process does not hash the
// embedded prior (0.7 MB of SHA-256) to name it: TestPriorBinSum fails
// when prior.bin is regenerated (go generate) without updating it.
const priorBinSum = "0529d8931977"

// priorSum returns the first 12 hex digits of the SHA-256 of a saved
// prior's bytes, the part of its model id naming its content.
func priorSum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])[:12]
}

// MarshalPrior returns the saved form of a prior trained by TrainBuiltin,
// with source (e.g. "go-src go1.26.8") naming its corpus. Layout,
// little-endian: magic "GLOSSPR1"; uint16 length and bytes of source;
// uint32 dim; uint32 vocabulary size n; uint64 total word count; per word
// uint8 length, its bytes and uint32 count; dim float32 scales; dim
// float32 of the common component; n×dim int8 (value = int8 × scale of
// its column, then the row is re-normalised); a CRC-32 (IEEE) of all
// that. Quantization is symmetric per dimension: scale = max |v| / 127.
// Words longer than 255 bytes cannot occur (Words drops them).
func MarshalPrior(b *Builtin, source string) []byte {
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.WriteString(priorMagic)
	buf.Write(le.AppendUint16(nil, uint16(len(source))))
	buf.WriteString(source)
	buf.Write(le.AppendUint32(nil, uint32(b.dim)))
	buf.Write(le.AppendUint32(nil, uint32(len(b.vocab))))
	buf.Write(le.AppendUint64(nil, b.total))
	for i, w := range b.vocab {
		buf.WriteByte(byte(len(w)))
		buf.WriteString(w)
		buf.Write(le.AppendUint32(nil, b.counts[i]))
	}
	scales := make([]float32, b.dim)
	for i, v := range b.vecs {
		scales[i%b.dim] = max(scales[i%b.dim], float32(math.Abs(float64(v)))/127)
	}
	common := b.common
	if len(common) != b.dim {
		common = make([]float32, b.dim)
	}
	for _, v := range append(append([]float32(nil), scales...), common...) {
		buf.Write(le.AppendUint32(nil, math.Float32bits(v)))
	}
	for i, v := range b.vecs {
		q := 0.0
		if s := scales[i%b.dim]; s > 0 {
			q = math.Round(float64(v / s))
		}
		buf.WriteByte(byte(int8(max(-127, min(127, q)))))
	}
	buf.Write(le.AppendUint32(nil, crc32.ChecksumIEEE(buf.Bytes())))
	return buf.Bytes()
}

// UnmarshalPrior decodes a prior written by MarshalPrior. Its model id is
// "prior:SOURCE@<first 12 hex digits of the SHA-256 of the bytes>". It
// returns an error wrapping ErrCorruptModel for bytes that are truncated,
// of another layout or fail their checksum. The prior keeps data (its
// int8 rows are decoded as they are read), which must not be modified
// afterwards.
func UnmarshalPrior(data []byte) (*Builtin, error) {
	b, err := unmarshalPriorSum(data, "")
	if err != nil {
		return nil, fmt.Errorf("prior: %w: %v", ErrCorruptModel, err)
	}
	return b, nil
}

// unmarshalPriorSum is UnmarshalPrior without the error's wrapping, with
// sum, when not "", taken for the first 12 hex digits of data's SHA-256
// in the model id instead of hashing data: Prior passes priorBinSum for
// the embedded prior, which does not change during a process. The words
// are strings of data's bytes (bytesString), not copies.
func unmarshalPriorSum(data []byte, sum string) (*Builtin, error) {
	le := binary.LittleEndian
	r, err := checkedBody(data, priorMagic, 6)
	if err != nil {
		return nil, err
	}
	sl := int(le.Uint16(r))
	if len(r) < 2+sl+16 {
		return nil, errors.New("truncated header")
	}
	source := string(r[2 : 2+sl])
	r = r[2+sl:]
	b, r, err := readSizes(r, 1<<12)
	if err != nil {
		return nil, err
	}
	n, dim := len(b.vocab), b.dim
	for i := 0; i < n; i++ {
		if len(r) < 1 || len(r) < 1+int(r[0])+4 {
			return nil, errors.New("truncated vocabulary")
		}
		l := int(r[0])
		b.vocab[i] = bytesString(r[1 : 1+l])
		b.counts[i] = le.Uint32(r[1+l:])
		r = r[1+l+4:]
	}
	b.words = newWordTable(b.vocab)
	if len(r) != 2*dim*4+n*dim {
		return nil, fmt.Errorf("weights of %d bytes, want %d", len(r), 2*dim*4+n*dim)
	}
	head := make([]float32, 2*dim)
	for i := range head {
		head[i] = math.Float32frombits(le.Uint32(r[i*4:]))
	}
	scales, common := head[:dim], head[dim:]
	b.q, b.scales = r[2*dim*4:], scales // rows decoded when read (wordRow)
	if norm(common) > 0 {
		b.common = common
	}
	if sum == "" {
		sum = priorSum(data)
	}
	b.id = "prior:" + source + "@" + sum
	return b, nil
}
