package embed

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/gloss-dev/gloss/internal/f32"
)

// builtinMagic starts a saved built-in model (version 2 of the layout;
// version 1, without the prior fields, is read as corrupt and retrained).
const builtinMagic = "GLOSSBI2"

// The saved layout, little-endian: magic, uint16 length and bytes of the
// prior's model id ("" for none), float32 prior weight, uint32 dim,
// uint32 vocabulary size, uint64 total word count; per word uint16
// length, the word's bytes, uint32 count; the word vectors (vocabulary
// size × dim float32); the common component (dim float32); a CRC-32
// (IEEE) of all that. The prior itself is not saved: it is gloss's
// embedded one (Prior), which must have the recorded id.
func (b *Builtin) marshal() []byte {
	var buf bytes.Buffer
	buf.WriteString(builtinMagic)
	le := binary.LittleEndian
	pid := b.PriorModel()
	buf.Write(le.AppendUint16(nil, uint16(len(pid))))
	buf.WriteString(pid)
	buf.Write(le.AppendUint32(nil, math.Float32bits(b.priorWeight)))
	buf.Write(le.AppendUint32(nil, uint32(b.dim)))
	buf.Write(le.AppendUint32(nil, uint32(len(b.vocab))))
	buf.Write(le.AppendUint64(nil, b.total))
	for i, w := range b.vocab {
		buf.Write(le.AppendUint16(nil, uint16(len(w))))
		buf.WriteString(w)
		buf.Write(le.AppendUint32(nil, b.counts[i]))
	}
	common := b.common
	if len(common) != b.dim {
		common = make([]float32, b.dim)
	}
	buf.Write(b.raw) // the rows of a model loaded without them in place
	for _, v := range append(append([]float32(nil), b.vecs...), common...) {
		buf.Write(le.AppendUint32(nil, math.Float32bits(v)))
	}
	buf.Write(le.AppendUint32(nil, crc32.ChecksumIEEE(buf.Bytes())))
	return buf.Bytes()
}

// builtinVersion versions how a Builtin turns text into a vector from its
// weights (Words, n-gram hashing, SIF, common component). It is hashed
// into the model id with the weights: change it with that code, so that
// vectors embedded by older code are never compared with new ones.
const builtinVersion = "2"

// builtinID returns the model id of saved weights.
func builtinID(dim, priorDim int, saved []byte) string {
	h := sha256.New()
	h.Write([]byte(builtinVersion + "\x00"))
	h.Write(saved)
	name := fmt.Sprintf("builtin:ppmi-svd-%d", dim)
	if priorDim > 0 {
		name += fmt.Sprintf("+prior-%d", priorDim)
	}
	return name + "@" + hex.EncodeToString(h.Sum(nil))[:12]
}

// priorDim returns the dimension of b's prior, 0 for none.
func (b *Builtin) priorDim() int {
	if b.prior == nil {
		return 0
	}
	return b.prior.dim
}

// setID sets the model id from the hash of the saved weights.
func (b *Builtin) setID() error {
	if b.dim <= 0 || b.dim > 1<<16 {
		return fmt.Errorf("built-in model dimension %d out of range 1..65536", b.dim)
	}
	b.id = builtinID(b.dim, b.priorDim(), b.marshal())
	return nil
}

// Save writes the model to path atomically (a temporary file in the same
// directory, then rename), creating the directory, and records its model
// id beside it (modelIDFile; best effort, LoadBuiltin computes the id
// when the record is missing).
func (b *Builtin) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data := b.marshal()
	if err := writeFileAtomic(path, ".builtin-*.tmp", data); err != nil {
		return fmt.Errorf("save built-in model: %w", err)
	}
	if st, err := os.Stat(path); err == nil {
		_ = writeModelID(path, st, data, b.id)
	}
	return nil
}

// ErrCorruptModel is wrapped by LoadBuiltin's error for a file that is
// not a whole, intact saved model.
var ErrCorruptModel = errors.New("corrupt built-in model")

// LoadBuiltin reads a model written by Save. It returns an error wrapping
// os.ErrNotExist when path is missing and ErrCorruptModel when the file is
// truncated, of another layout or fails its checksum.
//
// On Linux the file is mapped read-only (mapModel) rather than read into
// the heap, and the model's words and weights are used in place: a CLI
// search embeds one query, for which reading the 2 MB of a model of 4,000
// words × 128 dimensions into fresh heap (page faults, mostly), and a
// string per word, were most of the embedder's load (docs/benchmarks.md).
// The mapping is never unmapped, since a Builtin has no end of use: a
// process loads a workspace's model once (memory.Workspace keeps it) and
// again only when the model is retrained or changed. The whole file's
// CRC-32 is still checked at every load. The model id, a SHA-256 of the
// file (Model), is read from its sidecar when that was written for this
// very file (modelIDFile), else computed and the sidecar written.
func LoadBuiltin(path string) (*Builtin, error) {
	data, mapped, st, err := readModel(path)
	if err != nil {
		return nil, err
	}
	side := readModelID(path, st, data)
	b, err := unmarshalBuiltin(data, side)
	if err != nil {
		if mapped {
			unmapModel(data) // nothing refers to it
		}
		return nil, fmt.Errorf("%s: %w: %v", path, ErrCorruptModel, err)
	}
	if side == "" {
		_ = writeModelID(path, st, data, b.id) // best effort
	}
	return b, nil
}

// readModel returns the bytes of the model file at path, mapped
// (mapModel, mapped set) or read into the heap (readAligned), and the
// file's attributes as of its opening.
func readModel(path string) (data []byte, mapped bool, st os.FileInfo, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, false, nil, err
	}
	if data, ok := mapModel(f, st.Size()); ok {
		return data, true, st, nil
	}
	data, err = readAligned(f, st.Size())
	return data, false, st, err
}

// checkedBody checks the framing shared by the model files: magic, at
// least min bytes after it, and a trailing little-endian CRC-32 (IEEE) of
// everything before it. It returns the bytes between magic and checksum.
func checkedBody(data []byte, magic string, min int) ([]byte, error) {
	if len(data) < len(magic)+min || string(data[:len(magic)]) != magic {
		return nil, errors.New("bad header")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("checksum mismatch")
	}
	return body[len(magic):], nil
}

// readSizes reads the sizes shared by the model files (little-endian
// uint32 dimension, uint32 vocabulary size, uint64 total count), checks
// them (dimension in 1..maxDim, at most one word per remaining byte) and
// returns an empty Builtin of those sizes and the bytes after them.
func readSizes(r []byte, maxDim int) (*Builtin, []byte, error) {
	le := binary.LittleEndian
	if len(r) < 16 {
		return nil, nil, errors.New("truncated header")
	}
	dim, n, total := int(le.Uint32(r)), int(le.Uint32(r[4:])), le.Uint64(r[8:])
	r = r[16:]
	if dim <= 0 || dim > maxDim || n < 0 || n > len(r) {
		return nil, nil, fmt.Errorf("bad sizes (dim %d, vocabulary %d)", dim, n)
	}
	return &Builtin{dim: dim, vocab: make([]string, n), counts: make([]uint32, n), total: total}, r, nil
}

// unmarshalBuiltin decodes the saved model data (see marshal), which the
// result keeps: its words are strings of data's bytes and its weights
// data's bytes (in place as []float32 when data is 4-aligned there, else
// decoded a row at a time, wordRow), so data must not change afterwards.
// The model id is id when not "", else computed (builtinID).
func unmarshalBuiltin(data []byte, id string) (*Builtin, error) {
	le := binary.LittleEndian
	r, err := checkedBody(data, builtinMagic, 20)
	if err != nil {
		return nil, err
	}
	pid, weight, r, err := readPriorRef(r)
	if err != nil {
		return nil, err
	}
	b, r, err := readSizes(r, 1<<16)
	if err != nil {
		return nil, err
	}
	n, dim := len(b.vocab), b.dim
	for i := 0; i < n; i++ {
		if len(r) < 2 {
			return nil, errors.New("truncated vocabulary")
		}
		l := int(le.Uint16(r))
		if len(r) < 2+l+4 {
			return nil, errors.New("truncated vocabulary")
		}
		b.vocab[i] = bytesString(r[2 : 2+l])
		b.counts[i] = le.Uint32(r[2+l:])
		r = r[2+l+4:]
	}
	b.words = newWordTable(b.vocab)
	if len(r) != (n+1)*dim*4 {
		return nil, fmt.Errorf("weights of %d bytes, want %d", len(r), (n+1)*dim*4)
	}
	if f32.NativeLittleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(r)))%4 == 0 {
		vals := f32.View(r, (n+1)*dim)
		b.vecs, b.common = vals[:n*dim], vals[n*dim:]
	} else {
		b.raw, b.common = r[:n*dim*4:n*dim*4], f32.View(r[n*dim*4:], dim)
	}
	if norm(b.common) == 0 {
		b.common = nil
	}
	if pid != "" {
		p, err := Prior()
		if err != nil {
			return nil, err
		}
		if p == nil || p.id != pid {
			return nil, fmt.Errorf("trained with prior %s, which this gloss does not have", pid)
		}
		b.prior, b.priorWeight = p, weight
	}
	b.id = id
	if b.id == "" {
		b.id = builtinID(dim, b.priorDim(), data)
	}
	return b, nil
}

// readPriorRef reads the prior id and weight of a saved model and
// returns the rest of r.
func readPriorRef(r []byte) (string, float32, []byte, error) {
	le := binary.LittleEndian
	if len(r) < 2 || len(r) < 2+int(le.Uint16(r))+4+16 {
		return "", 0, nil, errors.New("truncated header")
	}
	l := int(le.Uint16(r))
	pid, w := string(r[2:2+l]), math.Float32frombits(le.Uint32(r[2+l:]))
	if pid != "" && !(w > 0 && w < 1) {
		return "", 0, nil, fmt.Errorf("prior weight %v out of range (0, 1)", w)
	}
	return pid, w, r[2+l+4:], nil
}

// readAligned reads the size bytes of f into memory placed so that every
// offset congruent to size modulo 4 is 4-aligned. A saved model's weights
// end 4 bytes before the end of the file and are a multiple of 4 bytes
// long, so they start at such an offset and f32.View uses them in place:
// a copy of the 1.8 MB of weights into fresh heap (page faults, mostly)
// was about a tenth of the CPU of a CLI search at 100,000 memories
// (pprof). For platforms without mapModel.
func readAligned(f *os.File, size64 int64) ([]byte, error) {
	size := int(size64)
	if int64(size) != size64 || size < 0 {
		return nil, fmt.Errorf("%s: too large", f.Name())
	}
	shift := (4 - size%4) % 4
	words := make([]float32, (shift+size+3)/4+1) // backing store, 4-aligned
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4*len(words))[shift : shift+size]
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF { // shrunk since Stat: what was read (corrupt)
		return buf[:n], nil
	}
	if err != nil {
		return nil, err
	}
	return buf, nil
}

// bytesString returns b as a string sharing b's memory (unsafe.String):
// the caller must never modify b afterwards. The words of a loaded model
// are such views of its file's bytes, not a copy each.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
