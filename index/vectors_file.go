package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/gloss-dev/gloss/internal/f32"
	"github.com/gloss-dev/gloss/internal/idhash"
)

// The vector index of a directory is two files:
//
//	vectors.bin  the base: header (magic, model id, dim, generation,
//	             epoch, row count), then the rows by column — ids
//	             (uint16 length + bytes), text hashes (uint64), zero
//	             padding to a multiple of 4, compact rows (rows ×
//	             compactStride(dim) bytes: each row's float32 scale and
//	             int8 values, vectors_compact.go), vectors (rows × dim
//	             float32, one block, so that it is used in place), the
//	             CRC-32 of each vector row (rows × uint32) — then the
//	             CRC-32 of all the bytes before the vectors, and the
//	             CRC-32 of the block of row CRCs; replaced atomically
//	             (temporary file, rename) by Rebuild and by compaction.
//	             A search reads the compact rows and only the vectors of
//	             its candidates, each checked against its row CRC.
//	             Format GLOSSVX2 (read, and rewritten as GLOSSVX3 by
//	             Open when the directory is writable) had no compact rows
//	             and one CRC-32 of the whole file after the vectors.
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
	vecMagic    = "GLOSSVX3"
	vecMagicV2  = "GLOSSVX2"
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
	// ids holds row i's id; until the first change of the rows (index),
	// the ids of a base file stay undecoded in idRaw instead (ids nil):
	// row i's id is idRaw[idOff[i]+2 : idOff[i+1]] (after its uint16
	// length). Decoding 100,000 ids into the heap cost a CLI search,
	// which only needs the ids of its hits, about 20 ms (pprof: mostly
	// page faults of 4 MB of fresh heap).
	ids   []string
	idRaw []byte   // the base file's id block (in the mapping), or nil
	idOff []uint32 // rows+1 offsets into idRaw, or nil once ids are decoded
	spare int      // extra capacity for ids and hashes when they are decoded
	// hash holds row i's text hash; like ids, the hashes of a base file
	// stay undecoded in hashRaw (hash nil; 8 bytes per row, in the
	// mapping) until the rows first change (index), or a compaction
	// writes them: a search needs none of them, and decoding them cost a
	// CLI process 800 KB of fresh heap at 100,000 rows.
	hash    []uint64
	hashRaw []byte
	// The rows are two blocks: data holds rows 0..len(data)/dim-1 (the
	// base file's rows, mapped, or the heap rows of a rebuild), extra the
	// rows added after it. A row added by an update or by replaying the
	// log goes to extra, so that replaying a log never copies the base
	// block (growing a 50 MiB mapped block by one row copied all of it:
	// most of a CLI search's CPU at 100,000 memories, pprof).
	data  []float32
	extra []float32
	// comp holds the compact form (vectors_compact.go) of rows 0 to
	// len(comp)/compactStride(dim)-1, in the base file's mapping: those
	// of a GLOSSVX3 base, kept current as rows change (put, remove);
	// nil for heap rows and a GLOSSVX2 base. Rows past it are scanned
	// exactly.
	comp []byte
	// old is set for a state decoded from a GLOSSVX2 base file.
	old bool
	// pos maps each row's id to the row through a map of the ids'
	// hashes (internal/idhash, no pointer: a map of the 100,000 id
	// strings of a large index was scanned by a batch's collector at
	// every cycle, docs/benchmarks.md); built on first use (index).
	pos *idhash.Map
	// file is the base file data points into (nil when data is the
	// heap's); Vectors releases it only when no state uses it (dropBase).
	file *baseFile
	// check is the base file's CRC-32 still to verify over the rows
	// block (verifyRows), nil once verified or for rows not read from a
	// file.
	check *rowsCheck
}

// ErrVectorsCorrupt is returned (wrapped) by the Vectors method that
// found the base file's CRC-32 wrong: the index is then empty at an
// unknown generation, as OpenVectors leaves a damaged index, so its
// owner rebuilds it from the store.
var ErrVectorsCorrupt = errors.New("vector index: checksum mismatch")

// rowsCheck is the part of a base file's CRC-32 (IEEE, hash/crc32) left
// to verify when it is opened: decodeBase sums the bytes before the rows
// block (header, ids, hashes: about 3 MB at 100,000 rows), and the rows
// block (77 MB of 80 at 100,000 rows of 192 float32) is summed by the
// first scan that reads it anyway (Vectors.SearchVector, a chunk at a
// time while the chunk is in the CPU cache), or in one pass
// (vecState.verifyRows) before any other use of the rows: before a
// log's records change them, before they are reused by a rebuild or
// written to a new base. Reading the rows twice in a CLI search, once
// for the check at opening and once for the scan, cost about a fifth of
// its CPU (pprof, docs/benchmarks.md).
//
// In a GLOSSVX3 file the summed block is the compact rows (rest), and
// the float32 rows are covered by one CRC-32 each (rowCRC, itself
// checked at opening): the first scan sums the compact rows (summed
// afterwards) and checks the float32 rows of its candidates only, since
// reading all of them is what the compact rows avoid; any other use
// checks all of them (ok).
type rowsCheck struct {
	crc  uint32 // CRC-32 of the file's bytes before rest
	rest []byte // the bytes of the summed block not summed yet, as stored
	want uint32 // the CRC-32 of the bytes before the float32 rows (GLOSSVX3) or of the whole file (GLOSSVX2)
	// summed is set once rest is summed and the sum was want's
	// (GLOSSVX3): scans then run under the read lock.
	summed bool
	rows   []byte // GLOSSVX3: the float32 rows block, as stored
	rowCRC []byte // GLOSSVX3: the CRC-32 of each row of rows (uint32 each)
}

// sum adds the next n bytes of the summed block (fewer at its end) to
// the running CRC.
func (c *rowsCheck) sum(n int) {
	n = min(n, len(c.rest))
	c.crc = crc32.Update(c.crc, crc32.IEEETable, c.rest[:n])
	c.rest = c.rest[n:]
}

// restOK sums the rest of the summed block and reports whether its
// CRC-32 is the stored one (setting summed).
func (c *rowsCheck) restOK() bool {
	if c.summed {
		return true
	}
	c.sum(len(c.rest))
	c.summed = c.crc == c.want
	return c.summed
}

// rowOK reports whether float32 row i of a GLOSSVX3 file matches its
// CRC-32 (always true for a GLOSSVX2 file, whose rows rest covers, and
// for rows added after the file's).
func (c *rowsCheck) rowOK(i int) bool {
	if c.rowCRC == nil || 4*i >= len(c.rowCRC) {
		return true
	}
	n := len(c.rows) / (len(c.rowCRC) / 4)
	return crc32.ChecksumIEEE(c.rows[i*n:(i+1)*n]) == le.Uint32(c.rowCRC[4*i:])
}

// setRow records v, just written as row i from a trusted source (a
// log record, checked by its own CRC-32), as row i's content: its CRC-32
// is then v's. Nothing for a nil c, a GLOSSVX2 file, or a row past the
// file's.
func (c *rowsCheck) setRow(i int, v []float32) {
	if c == nil || 4*i >= len(c.rowCRC) {
		return
	}
	le.PutUint32(c.rowCRC[4*i:], crc32.ChecksumIEEE(f32.Bytes(v)))
}

// moveRow records that row from, not checked, was copied to row to
// (whose values are now v): its CRC-32 moves with it, so that a damaged
// row is still found when read; a row from past the file's came from a
// log record and is trusted (setRow).
func (c *rowsCheck) moveRow(from, to int, v []float32) {
	if c == nil || 4*to >= len(c.rowCRC) {
		return
	}
	if 4*from >= len(c.rowCRC) {
		c.setRow(to, v)
		return
	}
	copy(c.rowCRC[4*to:4*to+4], c.rowCRC[4*from:])
}

// ok reports whether the whole file's content is as checksummed: the
// summed block, then (GLOSSVX3) every float32 row.
func (c *rowsCheck) ok() bool {
	if !c.restOK() {
		return false
	}
	for i := range len(c.rowCRC) / 4 {
		if !c.rowOK(i) {
			return false
		}
	}
	return true
}

// verifyForReplay prepares s's unverified rows for a log's changes: the
// rows of a GLOSSVX2 file are verified in one pass (verifyRows); of a
// GLOSSVX3 file only the int8 rows are summed (the changes rewrite some
// of them), while the float32 rows keep their CRC-32s, which the changes
// keep current (setRow, moveRow) and a search checks when it reads one:
// replaying a short log then reads 20 of the 100 MB of a base file of
// 100,000 rows, not all of it. It returns ErrVectorsCorrupt on a
// mismatch.
func (s *vecState) verifyForReplay() error {
	c := s.check
	if c == nil || c.rowCRC == nil {
		return s.verifyRows()
	}
	if !c.restOK() {
		s.check = nil
		return ErrVectorsCorrupt
	}
	return nil
}

// verifyRows verifies s's rows when they are not yet (s.check): it
// returns ErrVectorsCorrupt on a mismatch. s.check is nil afterwards
// either way. The caller holds the index's lock for writing.
func (s *vecState) verifyRows() error {
	c := s.check
	if c == nil {
		return nil
	}
	s.check = nil
	if !c.ok() {
		return ErrVectorsCorrupt
	}
	return nil
}

// row returns row i of the two blocks (data, then extra).
func (s *vecState) row(i int) []float32 {
	o := i * s.dim
	if o < len(s.data) {
		return s.data[o : o+s.dim]
	}
	o -= len(s.data)
	return s.extra[o : o+s.dim]
}

// rows returns the number of rows.
func (s *vecState) rows() int {
	if s.idOff != nil {
		return len(s.idOff) - 1
	}
	return len(s.ids)
}

// rawID returns the bytes of row i's id while the ids are undecoded.
func (s *vecState) rawID(i int) []byte { return s.idRaw[s.idOff[i]+2 : s.idOff[i+1]] }

// id returns the id of row i.
func (s *vecState) id(i int) string {
	if s.idOff != nil {
		return string(s.rawID(i))
	}
	return s.ids[i]
}

// idLess reports whether row i's id sorts before row j's (bytewise, as
// Go compares strings).
func (s *vecState) idLess(i, j int) bool {
	if s.idOff != nil {
		return bytes.Compare(s.rawID(i), s.rawID(j)) < 0
	}
	return s.ids[i] < s.ids[j]
}

// decodeIDs makes ids hold every row's id (substrings of one copy of the
// id block, one allocation instead of one per id), with room for spare
// more. The caller holds the index's lock for writing.
func (s *vecState) decodeIDs() {
	if s.idOff == nil {
		return
	}
	n := len(s.idOff) - 1
	block := string(s.idRaw[:s.idOff[n]])
	s.ids = make([]string, n, n+s.spare)
	for i := range s.ids {
		s.ids[i] = block[s.idOff[i]+2 : s.idOff[i+1]]
	}
	s.idRaw, s.idOff = nil, nil
}

// decodeHashes makes hash hold every row's text hash, with room for
// spare more. The caller holds the index's lock for writing.
func (s *vecState) decodeHashes() {
	if s.hashRaw == nil {
		return
	}
	n := len(s.hashRaw) / 8
	s.hash = make([]uint64, n, n+s.spare)
	for i := range s.hash {
		s.hash[i] = le.Uint64(s.hashRaw[i*8:])
	}
	s.hashRaw = nil
}

// index returns the row of id, building the id map on first use (opening
// an index for search alone never builds it, nor decodes the ids or the
// hashes).
func (s *vecState) index(id string) (int, bool) {
	s.decodeIDs()
	s.decodeHashes()
	if s.pos == nil {
		s.pos = newIDMap(len(s.ids))
		for i, x := range s.ids {
			_ = s.pos.Add(x, int32(i), s) // ID never fails
		}
	}
	r, ok, _ := s.pos.Get(id, s)
	return int(r), ok
}

// ID implements idhash.IDs: the id of row n.
func (s *vecState) ID(n int32) (string, error) { return s.ids[n], nil }

// newIDMap makes the id maps of vector states (idhash.New); tests give
// one of a weak hash.
var newIDMap = idhash.New

// put adds or replaces the row of id.
func (s *vecState) put(id string, h uint64, v []float32) {
	if i, ok := s.index(id); ok {
		s.hash[i] = h
		copy(s.row(i), v)
		s.requantize(i)
		s.check.setRow(i, s.row(i))
		return
	}
	_ = s.pos.Add(id, int32(len(s.ids)), s)
	s.ids = append(s.ids, id)
	s.hash = append(s.hash, h)
	if len(s.extra) == 0 && len(s.data)+len(v) <= cap(s.data) {
		s.data = append(s.data, v...) // room in the block (a rebuild's, or a base's after deletions)
	} else {
		s.extra = append(s.extra, v...)
	}
	s.check.setRow(len(s.ids)-1, v)
}

// remove deletes the row of id (the last row takes its place).
func (s *vecState) remove(id string) {
	i, ok := s.index(id)
	if !ok {
		return
	}
	last := len(s.ids) - 1
	if i != last {
		s.ids[i], s.hash[i] = s.ids[last], s.hash[last]
		copy(s.row(i), s.row(last))
		// The moved row's int8 form and CRC-32 move with it, unchecked
		// like its float32 values (rowsCheck.moveRow).
		if stride := compactStride(s.dim); (last+1)*stride <= len(s.comp) {
			copy(s.comp[i*stride:(i+1)*stride], s.comp[last*stride:])
		} else {
			s.requantize(i)
		}
		s.check.moveRow(last, i, s.row(i))
		s.pos.Move(s.ids[i], int32(i))
	}
	s.pos.Delete(id)
	s.ids, s.hash = s.ids[:last], s.hash[:last]
	s.comp = s.comp[:min(len(s.comp), last*compactStride(s.dim))]
	if len(s.extra) > 0 {
		s.extra = s.extra[:len(s.extra)-s.dim]
	} else {
		s.data = s.data[:last*s.dim]
	}
}

// requantize rewrites the compact form of row i from its float32 values
// when row i has one.
func (s *vecState) requantize(i int) {
	stride := compactStride(s.dim)
	if (i+1)*stride <= len(s.comp) {
		quantizeRow(s.comp[i*stride:], s.row(i))
	}
}

// writeBaseFile writes the base file of s to path through a temporary file
// and rename, streaming it (the CRC-32 computed as it goes) rather than
// building the file in memory: at 100,000 rows the base is about 85 MB,
// and building it cost a zeroed 85 MB buffer per compaction (pprof of
// `remember --batch`, docs/benchmarks.md).
func writeBaseFile(path string, s *vecState) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vectors-*.tmp")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	crc := crc32.NewIEEE()
	w := &countWriter{w: io.MultiWriter(bw, crc)}
	buf := make([]byte, 0, 64)
	put := func(b []byte) { _, _ = w.Write(b) }
	put([]byte(vecMagic))
	put(le.AppendUint32(buf[:0], uint32(len(s.model))))
	put([]byte(s.model))
	put(le.AppendUint32(buf[:0], uint32(s.dim)))
	put(le.AppendUint64(buf[:0], s.gen))
	put(le.AppendUint64(buf[:0], s.epoch))
	put(le.AppendUint32(buf[:0], uint32(s.rows())))
	for i := range s.rows() {
		id := s.id(i)
		put(le.AppendUint16(buf[:0], uint16(len(id))))
		_, _ = io.WriteString(w, id)
	}
	s.decodeHashes()
	for _, h := range s.hash {
		put(le.AppendUint64(buf[:0], h))
	}
	put(make([]byte, pad4(w.n)))
	// The rows of a mapped base are read a part at a time, each part
	// then reclaimed from the resident set (baseFile.pageOut): once for
	// the compact rows, once for the float32 rows.
	//
	// The compact rows s keeps (those of a mapped GLOSSVX3 base, kept
	// current by put and remove) are written as they are, the rest
	// quantized: quantizing every row at each compaction of a batch's
	// log was a sixth of the batch's vector CPU (pprof,
	// docs/benchmarks.md). Same bytes (TestWriteBaseKeepsCompactRows).
	stride := compactStride(s.dim)
	kept := min(len(s.comp)/stride, s.rows())
	for c := s.comp[:kept*stride]; len(c) > 0; { // in parts, each then reclaimed as the rows are
		n := min(len(c), 4<<20)
		put(c[:n])
		s.file.pageOut(c[:n])
		c = c[n:]
	}
	comp := make([]byte, stride)
	row := 0
	eachPart(s, func(rows []float32) {
		for o := 0; o < len(rows); o += s.dim {
			if row >= kept {
				quantizeRow(comp, rows[o:o+s.dim])
				put(comp)
			}
			row++
		}
	})
	crcBefore := crc.Sum32()
	rowCRC := make([]byte, 0, 4*s.rows())
	rw := &countWriter{w: bw}
	eachPart(s, func(rows []float32) {
		b := f32.Bytes(rows)
		for o := 0; o < len(b); o += 4 * s.dim {
			rowCRC = le.AppendUint32(rowCRC, crc32.ChecksumIEEE(b[o:o+4*s.dim]))
		}
		_, _ = rw.Write(b)
	})
	_, _ = rw.Write(rowCRC)
	_, _ = rw.Write(le.AppendUint32(nil, crcBefore))
	_, _ = rw.Write(le.AppendUint32(nil, crc32.ChecksumIEEE(rowCRC)))
	werr := errors.Join(w.err, rw.err, bw.Flush())
	if err := errors.Join(werr, tmp.Close()); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// eachPart calls f with s's float32 rows in order, whole rows of at most
// 4 MiB at a time (at least one row), each part of a mapped base then
// reclaimed from the resident set (baseFile.pageOut).
func eachPart(s *vecState, f func(rows []float32)) {
	if s.dim == 0 {
		return
	}
	per := max(1, (4<<20)/(4*s.dim)) * s.dim
	for _, block := range [][]float32{s.data, s.extra} {
		for len(block) > 0 {
			n := min(len(block), per)
			f(block[:n])
			s.file.pageOut(f32.Bytes(block[:n]))
			block = block[n:]
		}
	}
}

// countWriter counts the bytes written through it and keeps the first
// error.
type countWriter struct {
	w   io.Writer
	n   int
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += n
	c.err = err
	return n, err
}

// rowSize is the length of appendRow's row of id and a vector of dim
// values: the id's length (2 bytes), the id, its hash (8) and the values
// (4 each).
func rowSize(id string, dim int) int { return 2 + len(id) + 8 + 4*dim }

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

// decodeBase parses a base file; the state's rows point into file. The
// id, hash and added-row slices get room for spare more rows (the
// upserts of the log about to be replayed), so that replaying does not
// copy them at each growth.
func decodeBase(file *baseFile, spare int) (*vecState, error) {
	return decodeBaseChecked(file, spare, true)
}

// decodeBaseChecked is decodeBase, with the checksum verified only when
// check is set: remapBase reads back the file it has just written, and
// verifying it would read every page of the mapping into the resident
// set. The bytes before the rows block are summed here; the rows block
// is left to the state's first scan or use (rowsCheck), so a damaged
// file decodes without error unless its structure is broken.
func decodeBaseChecked(file *baseFile, spare int, check bool) (*vecState, error) {
	data := file.data
	if len(data) < len(vecMagic)+8 {
		return nil, errors.New("not a gloss vector index of this version")
	}
	old := string(data[:len(vecMagic)]) == vecMagicV2
	if !old && string(data[:len(vecMagic)]) != vecMagic {
		return nil, errors.New("not a gloss vector index of this version")
	}
	body := data[:len(data)-4]
	if !old {
		body = data[:len(data)-8]
	}
	r := body[len(vecMagic):]
	ml := int(le.Uint32(r))
	if len(r) < 4+ml+24 {
		return nil, errors.New("truncated header")
	}
	s := &vecState{model: string(r[4 : 4+ml]), known: true, file: file, old: old}
	r = r[4+ml:]
	s.dim, s.gen, s.epoch = int(le.Uint32(r)), le.Uint64(r[4:]), le.Uint64(r[12:])
	n := int(le.Uint32(r[20:]))
	r = r[24:]
	if s.dim <= 0 || s.dim > 1<<16 || n > len(r) {
		return nil, fmt.Errorf("bad header (dim %d, %d rows)", s.dim, n)
	}
	var err error
	if s.idOff, r, err = idOffsets(r, n); err != nil {
		return nil, err
	}
	s.idRaw, s.spare = body[len(body)-len(r)-int(s.idOff[n]):len(body)-len(r)], spare
	pad := pad4(len(body) - len(r) + n*8)
	compLen, crcLen := 0, 0
	if !old {
		if s.dim > maxCompactDim {
			return nil, fmt.Errorf("bad header (dim %d)", s.dim)
		}
		compLen, crcLen = n*compactStride(s.dim), n*4
	}
	if want := n*8 + pad + compLen + n*s.dim*4 + crcLen; len(r) != want {
		return nil, fmt.Errorf("rows of %d bytes, want %d", len(r), want)
	}
	s.hashRaw = r[: n*8 : n*8]
	if n == 0 {
		s.hashRaw = nil
	}
	r = r[n*8+pad:]
	comp, rows, rowCRC := r[:compLen:compLen], r[compLen:len(r)-crcLen], r[len(r)-crcLen:]
	s.data = f32.View(rows, n*s.dim)
	s.extra = make([]float32, 0, spare*s.dim)
	if !check {
		if !old {
			s.comp = comp
		}
		return s, nil
	}
	if old {
		file.populate(data)
		s.check = &rowsCheck{crc: crc32.ChecksumIEEE(body[:len(body)-len(rows)]), rest: rows, want: le.Uint32(data[len(data)-4:])}
		return s, nil
	}
	if crc32.ChecksumIEEE(rowCRC) != le.Uint32(data[len(data)-4:]) {
		return nil, errors.New("row checksums damaged")
	}
	s.comp = comp
	// Only the bytes a search reads are populated: the float32 rows are
	// read for the candidates alone.
	file.populate(data[:len(body)-len(r)+compLen])
	s.check = &rowsCheck{crc: crc32.ChecksumIEEE(body[:len(body)-len(r)]), rest: comp, want: le.Uint32(data[len(data)-8:]),
		rows: rows, rowCRC: rowCRC}
	return s, nil
}

// idOffsets returns the offsets of the n length-prefixed ids at the
// start of r (vecState.idOff: id i after its length at offset idOff[i],
// the block ending at idOff[n]) and the rest of r.
func idOffsets(r []byte, n int) ([]uint32, []byte, error) {
	off := make([]uint32, n+1)
	end := 0
	for i := range n {
		if len(r) < end+2 || len(r) < end+2+int(le.Uint16(r[end:])) {
			return nil, nil, errors.New("truncated ids")
		}
		off[i] = uint32(end)
		end += 2 + int(le.Uint16(r[end:]))
	}
	off[n] = uint32(end)
	return off, r[end:], nil
}

// vecLog is a log file as read by readLog: the epoch of the base it
// follows and its records' payloads, each checked against its CRC-32.
type vecLog struct {
	epoch uint64
	recs  [][]byte
}

// readLog reads the log file at path. A missing log is empty; a bad
// header or a torn or corrupt record is an error.
func readLog(path string) (vecLog, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return vecLog{}, nil
	}
	if err != nil {
		return vecLog{}, err
	}
	if len(data) < len(vecLogMagic)+8 || string(data[:len(vecLogMagic)]) != vecLogMagic {
		return vecLog{}, errors.New("bad log header")
	}
	recs, err := logRecords(data[len(vecLogMagic)+8:])
	return vecLog{epoch: le.Uint64(data[len(vecLogMagic):]), recs: recs}, err
}

// upserts returns the number of upsert records of l.
func (l vecLog) upserts() int {
	k := 0
	for _, p := range l.recs {
		if p[0] == recUpsert {
			k++
		}
	}
	return k
}

// replay applies the complete batches of l to s and returns the number
// of records read; a log of another epoch than s's is empty.
func (l vecLog) replay(s *vecState) (int, error) {
	if l.epoch != s.epoch {
		return 0, nil
	}
	start := 0 // the first record of the open batch
	for i, p := range l.recs {
		switch p[0] {
		case recUpsert, recDelete:
			continue
		case recInvalid:
			s.known = false
		case recGeneration:
			if len(p) != 9 {
				return 0, errors.New("bad generation record")
			}
			for _, q := range l.recs[start:i] {
				if err := applyRecord(s, q); err != nil {
					return 0, err
				}
			}
			s.gen, s.known = le.Uint64(p[1:]), true
		default:
			return 0, fmt.Errorf("unknown log record %q", p[0])
		}
		start = i + 1
	}
	return len(l.recs), nil
}

// logRecords returns the payloads of the records in r (the log after its
// header), each checked against its CRC-32; a torn or corrupt record is
// an error.
func logRecords(r []byte) ([][]byte, error) {
	var recs [][]byte
	for len(r) > 0 {
		if len(r) < 4 {
			return nil, errors.New("torn log record")
		}
		l := int(le.Uint32(r))
		if len(r) < 8+l {
			return nil, errors.New("torn log record")
		}
		p := r[4 : 4+l]
		if crc32.ChecksumIEEE(p) != le.Uint32(r[4+l:]) || l == 0 {
			return nil, errors.New("corrupt log record")
		}
		recs = append(recs, p)
		r = r[8+l:]
	}
	return recs, nil
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

// pad4 returns the zero bytes that align offset to 4: the vector block
// of a base file starts 4-aligned, so that it is used in place.
func pad4(offset int) int { return (4 - offset%4) % 4 }

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
