package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
)

// The vector index of a directory is two files:
//
//	vectors.bin  the base: header (magic, model id, dim, generation,
//	             epoch, row count), rows (id, text hash, dim float32),
//	             CRC-32 of all that; replaced atomically (temporary file,
//	             rename) by Rebuild and by compaction.
//	vectors.log  changes since the base: a header naming the base's epoch,
//	             then records (uint32 length, payload, CRC-32 of the
//	             payload): upserts, deletions, and a generation record
//	             closing each Update. A log of another epoch (a crash
//	             between compaction's rename and the log's reset) is
//	             ignored; a torn or corrupt record makes the index corrupt
//	             (rebuilt from the store).
//
// All numbers are little-endian.
const (
	vecBaseFile = "vectors.bin"
	vecLogFile  = "vectors.log"
	vecMagic    = "GLOSSVX1"
	vecLogMagic = "GLOSSVL1"
)

// Log record kinds.
const (
	recUpsert     = 'U' // id, text hash, vector
	recDelete     = 'D' // id
	recGeneration = 'G' // generation: the records before it are one batch
	recInvalid    = 'X' // the index must be rebuilt
)

var le = binary.LittleEndian

// vecState is the content of a vector index: rows of one model.
type vecState struct {
	model string
	dim   int
	gen   uint64
	known bool // gen is valid
	epoch uint64
	ids   []string
	hash  []uint64
	data  []float32 // len(ids)*dim
	pos   map[string]int
}

func (s *vecState) row(i int) []float32 { return s.data[i*s.dim : (i+1)*s.dim] }

// put adds or replaces the row of id.
func (s *vecState) put(id string, h uint64, v []float32) {
	if i, ok := s.pos[id]; ok {
		s.hash[i] = h
		copy(s.row(i), v)
		return
	}
	s.pos[id] = len(s.ids)
	s.ids = append(s.ids, id)
	s.hash = append(s.hash, h)
	s.data = append(s.data, v...)
}

// remove deletes the row of id (the last row takes its place).
func (s *vecState) remove(id string) {
	i, ok := s.pos[id]
	if !ok {
		return
	}
	last := len(s.ids) - 1
	if i != last {
		s.ids[i], s.hash[i] = s.ids[last], s.hash[last]
		copy(s.row(i), s.row(last))
		s.pos[s.ids[i]] = i
	}
	delete(s.pos, id)
	s.ids, s.hash, s.data = s.ids[:last], s.hash[:last], s.data[:last*s.dim]
}

// encodeBase returns the base file of s.
func encodeBase(s *vecState) []byte {
	var b bytes.Buffer
	b.Grow(64 + len(s.ids)*(24+s.dim*4))
	b.WriteString(vecMagic)
	b.Write(le.AppendUint32(nil, uint32(len(s.model))))
	b.WriteString(s.model)
	b.Write(le.AppendUint32(nil, uint32(s.dim)))
	b.Write(le.AppendUint64(nil, s.gen))
	b.Write(le.AppendUint64(nil, s.epoch))
	b.Write(le.AppendUint32(nil, uint32(len(s.ids))))
	row := make([]byte, 0, 12+s.dim*4)
	for i, id := range s.ids {
		row = appendRow(row[:0], id, s.hash[i], s.row(i))
		b.Write(row)
	}
	b.Write(le.AppendUint32(nil, crc32.ChecksumIEEE(b.Bytes())))
	return b.Bytes()
}

func appendRow(dst []byte, id string, h uint64, v []float32) []byte {
	dst = le.AppendUint16(dst, uint16(len(id)))
	dst = append(dst, id...)
	dst = le.AppendUint64(dst, h)
	for _, x := range v {
		dst = le.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}

// decodeRow reads one row of dim values from r; it returns the rest.
func decodeRow(r []byte, dim int) (id string, h uint64, v []float32, rest []byte, err error) {
	if len(r) < 2 {
		return "", 0, nil, nil, errors.New("truncated row")
	}
	n := int(le.Uint16(r))
	if len(r) < 2+n+8+dim*4 {
		return "", 0, nil, nil, errors.New("truncated row")
	}
	id, h = string(r[2:2+n]), le.Uint64(r[2+n:])
	r = r[2+n+8:]
	v = make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(le.Uint32(r[i*4:]))
	}
	return id, h, v, r[dim*4:], nil
}

// decodeBase parses a base file.
func decodeBase(data []byte) (*vecState, error) {
	if len(data) < len(vecMagic)+4 || string(data[:len(vecMagic)]) != vecMagic {
		return nil, errors.New("not a gloss vector index")
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != le.Uint32(data[len(data)-4:]) {
		return nil, errors.New("checksum mismatch")
	}
	r := body[len(vecMagic):]
	ml := int(le.Uint32(r))
	if len(r) < 4+ml+24 {
		return nil, errors.New("truncated header")
	}
	s := &vecState{model: string(r[4 : 4+ml]), known: true, pos: map[string]int{}}
	r = r[4+ml:]
	s.dim, s.gen, s.epoch = int(le.Uint32(r)), le.Uint64(r[4:]), le.Uint64(r[12:])
	n := int(le.Uint32(r[20:]))
	r = r[24:]
	if s.dim <= 0 || s.dim > 1<<16 || n > len(r) {
		return nil, fmt.Errorf("bad header (dim %d, %d rows)", s.dim, n)
	}
	s.data = make([]float32, 0, n*s.dim)
	for i := 0; i < n; i++ {
		id, h, v, rest, err := decodeRow(r, s.dim)
		if err != nil {
			return nil, err
		}
		s.put(id, h, v)
		r = rest
	}
	if len(r) != 0 {
		return nil, errors.New("trailing bytes")
	}
	return s, nil
}

// writeAtomic writes data to path through a temporary file and rename.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vectors-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// replayLog applies the complete batches of the log file at path to s and
// returns the number of records read. A missing log or one of another
// epoch is empty; a corrupt one is an error.
func replayLog(path string, s *vecState) (int, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(data) < len(vecLogMagic)+8 || string(data[:len(vecLogMagic)]) != vecLogMagic {
		return 0, errors.New("bad log header")
	}
	if le.Uint64(data[len(vecLogMagic):]) != s.epoch {
		return 0, nil
	}
	r := data[len(vecLogMagic)+8:]
	var pending [][]byte
	n := 0
	for len(r) > 0 {
		if len(r) < 4 {
			return 0, errors.New("torn log record")
		}
		l := int(le.Uint32(r))
		if len(r) < 8+l {
			return 0, errors.New("torn log record")
		}
		p := r[4 : 4+l]
		if crc32.ChecksumIEEE(p) != le.Uint32(r[4+l:]) || l == 0 {
			return 0, errors.New("corrupt log record")
		}
		r = r[8+l:]
		n++
		switch p[0] {
		case recUpsert, recDelete:
			pending = append(pending, p)
			continue
		case recInvalid:
			s.known = false
		case recGeneration:
			if len(p) != 9 {
				return 0, errors.New("bad generation record")
			}
			for _, q := range pending {
				if err := applyRecord(s, q); err != nil {
					return 0, err
				}
			}
			s.gen, s.known = le.Uint64(p[1:]), true
		default:
			return 0, fmt.Errorf("unknown log record %q", p[0])
		}
		pending = pending[:0]
	}
	return n, nil
}

func applyRecord(s *vecState, p []byte) error {
	if p[0] == recDelete {
		s.remove(string(p[1:]))
		return nil
	}
	id, h, v, rest, err := decodeRow(p[1:], s.dim)
	if err != nil || len(rest) != 0 {
		return errors.New("bad upsert record")
	}
	s.put(id, h, v)
	return nil
}

// appendLog appends records to the log at path, creating it with the
// header of epoch when missing.
func appendLog(path string, epoch uint64, recs [][]byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		_, _ = w.WriteString(vecLogMagic)
		_, _ = w.Write(le.AppendUint64(nil, epoch))
	}
	for _, p := range recs {
		_, _ = w.Write(le.AppendUint32(nil, uint32(len(p))))
		_, _ = w.Write(p)
		_, _ = w.Write(le.AppendUint32(nil, crc32.ChecksumIEEE(p)))
	}
	return errors.Join(w.Flush(), f.Close())
}
