package bm25

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
	"slices"
	"sort"
)

// The saved form of an Index: a file that a process answering a single
// query (a CLI search, issue #15) reads instead of loading an index or
// opening Bluge, touching only the parts that query needs. Layout
// (integers little-endian; "uvarint" is encoding/binary's unsigned
// varint):
//
//	magic "GLBM25S1"
//	data blocks, each followed by nothing (its CRC-32 is in its reference)
//	directory (see below)
//	footer: directory offset (uint64), directory length (uint32),
//	        directory CRC-32 (uint32, IEEE), magic "GLBM25S1"
//
// The directory holds: the caller's tag (uvarint length, bytes); the
// number of document numbers; the id blocks' references; and per field
// (sorted by name) its name, N and total length (Index statistics, as
// Search uses them) and its dictionary blocks' references, each with the
// first term of its block. A reference is offset, length (uvarints) and
// the block's CRC-32 (uint32). A dictionary block holds up to
// savedTermsPerBlock terms in byte order, each: term, live document
// frequency, the posting upper-bound parameters (maxTF, minLen) and its
// postings' reference. A term's postings region holds its live postings
// in blocks of savedPostingsPerBlock (the last holds the rest): the
// number of blocks; a skip table, per block the delta of its last
// document number to the previous block's and its length in bytes; then
// the blocks, each per posting in document order the document number's
// delta to the previous one (across blocks; the first's to 0), the term
// frequency and the field length (uvarints). A search reads a term's
// whole region (one CRC-32) and decodes a block at a time into a buffer
// reused for the list, skipping by the table the blocks before a
// document it seeks (MaxScore's probes of non-essential lists; the
// block-wise layout of Lucene's postings, without its packed ints). Magic
// "GLBM25S1" was the unblocked layout, refused as ErrSavedCorrupt. An id
// block holds
// savedIDsPerBlock consecutive document numbers' ids (uvarint length,
// bytes; "" for a number with no live document).
//
// Every block is checked against its CRC-32 when read; a mismatch, a
// block out of the file or a malformed one is ErrSavedCorrupt, and the
// caller answers from the index the file was saved from instead.
const savedMagic = "GLBM25S2"

const (
	savedTermsPerBlock = 64
	savedIDsPerBlock   = 128
	// savedPostingsPerBlock is the number of postings per postings block
	// (the last block of a list holds the rest), decoded at once.
	savedPostingsPerBlock = 128
	savedFooterLen        = 8 + 4 + 4 + len(savedMagic)
)

// ErrSavedCorrupt is returned (wrapped) by OpenSaved and Saved.Search for
// a saved index whose file is truncated, malformed or fails a block's
// CRC-32.
var ErrSavedCorrupt = errors.New("saved BM25 index corrupt")

// WriteSaved writes the saved form of x, tagged with tag (the caller's
// description of what x reflects, returned by Saved.Tag), to path
// atomically: a temporary file in path's directory, synced, then renamed
// over path. Deleted documents' postings are left out; the statistics
// (N, total length, live document frequencies) are x's, so a Saved
// search ranks exactly as x.Search did when it was written. It returns
// the bytes written and the error of writing.
func (x *Index) WriteSaved(path string, tag []byte) (n int64, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return writeSavedFile(path, tag, &indexSource{x: x})
}

// writeSavedFile writes the saved form of src, tagged with tag, to path
// atomically (WriteSaved).
func writeSavedFile(path string, tag []byte, src savedSource) (n int64, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	cw := &countWriter{w: bufio.NewWriterSize(f, 1<<20)}
	if err := writeSaved(cw, tag, src); err != nil {
		return 0, err
	}
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return 0, err
	}
	return cw.n, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// blockRef is a block's place in the file and its CRC-32.
type blockRef struct {
	off, n uint64
	crc    uint32
}

func appendRef(b []byte, r blockRef) []byte {
	b = binary.AppendUvarint(b, r.off)
	b = binary.AppendUvarint(b, r.n)
	return binary.LittleEndian.AppendUint32(b, r.crc)
}

// savedSource is what writeSaved writes: an Index (indexSource) or a
// saved index with writes laid over it (Overlay.WriteSaved).
type savedSource interface {
	// eachID calls fn with every document number's id in number order
	// ("" for a number with no live document).
	eachID(fn func(id string) error) error
	numIDs() int
	// fieldNames returns the fields, sorted.
	fieldNames() []string
	// field starts the field name: it returns its statistics; its
	// terms follow (next).
	field(name string) (docs int, sumLen uint64, err error)
	// next returns the field's next term, in term order (ok false after
	// the last), and its postings: the blocks of a saved region to copy as
	// they are (nil: none), then p's postings with the field lengths by
	// document number (lens[d]) and, when some of them are of deleted
	// documents, dead reporting them (else nil); maxTF and minLen bound
	// them all. Both are valid until the next call.
	next() (term []byte, t termPostings, ok bool, err error)
}

// indexSource is an Index as a savedSource; the caller holds x.mu.
type indexSource struct {
	x     *Index
	f     *field   // the field being written
	terms []string // its terms not yet returned, sorted
	tbuf  []byte   // the term returned (next)
}

func (s indexSource) eachID(fn func(string) error) error {
	for _, id := range s.x.ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

func (s indexSource) numIDs() int { return len(s.x.ids) }

func (s indexSource) fieldNames() []string {
	names := make([]string, 0, len(s.x.fields))
	for name := range s.x.fields {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (s *indexSource) field(name string) (int, uint64, error) {
	f := s.x.fields[name]
	s.f, s.terms = f, s.terms[:0]
	for t := range f.terms {
		s.terms = append(s.terms, t)
	}
	sort.Strings(s.terms)
	return f.docs, f.sumLen, nil
}

func (s *indexSource) next() ([]byte, termPostings, bool, error) {
	if len(s.terms) == 0 {
		return nil, termPostings{}, false, nil
	}
	term := s.terms[0]
	s.terms = s.terms[1:]
	p := s.f.terms[term]
	t := termPostings{p: p, lens: s.f.lens, maxTF: p.maxTF, minLen: p.minLen}
	if s.x.dead > 0 {
		t.dead = func(d uint32) bool { return s.x.ids[d] == "" }
	}
	s.tbuf = append(s.tbuf[:0], term...)
	return s.tbuf, t, true, nil
}

// termPostings is a term's postings for writeSaved (savedSource.postings).
// A term whose postings are a saved region unchanged (raw not nil) is
// written as that region's bytes, with its CRC-32 (rawCRC) and its live
// document frequency (rawDF); prefix, p, lens and dead are then unused.
type termPostings struct {
	prefix        *savedPrefix
	p             *postings
	lens          []uint32
	dead          func(uint32) bool
	maxTF, minLen uint32
	raw           []byte
	rawCRC        uint32
	rawDF         int
}

// writeSaved writes the file's content for src to w. A term none of
// whose postings is live is left out.
func writeSaved(w *countWriter, tag []byte, src savedSource) error {
	putCRC := func(b []byte, crc uint32) (blockRef, error) {
		r := blockRef{off: uint64(w.n), n: uint64(len(b)), crc: crc}
		_, err := w.Write(b)
		return r, err
	}
	put := func(b []byte) (blockRef, error) { return putCRC(b, crc32.ChecksumIEEE(b)) }
	if _, err := w.Write([]byte(savedMagic)); err != nil {
		return err
	}
	var dir []byte
	dir = binary.AppendUvarint(dir, uint64(len(tag)))
	dir = append(dir, tag...)
	nIDs := src.numIDs()
	dir = binary.AppendUvarint(dir, uint64(nIDs))
	dir = binary.AppendUvarint(dir, uint64((nIDs+savedIDsPerBlock-1)/savedIDsPerBlock))
	var buf []byte
	inBlock := 0
	flushIDs := func() error {
		if inBlock == 0 {
			return nil
		}
		r, err := put(buf)
		dir = appendRef(dir, r)
		buf, inBlock = buf[:0], 0
		return err
	}
	err := src.eachID(func(id string) error {
		buf = binary.AppendUvarint(buf, uint64(len(id)))
		buf = append(buf, id...)
		if inBlock++; inBlock == savedIDsPerBlock {
			return flushIDs()
		}
		return nil
	})
	if err == nil {
		err = flushIDs()
	}
	if err != nil {
		return err
	}
	names := src.fieldNames()
	dir = binary.AppendUvarint(dir, uint64(len(names)))
	var post []byte
	var pw postingsWriter
	// The dictionary entries of a field are encoded as their postings are
	// written (dict, pointer-free; blocks: where each block's first entry
	// starts) and written after all of them: held as structs with their
	// term strings they were 5.9 MB of small objects for the collector to
	// scan during a merge of a batch (heap profile at +75,000 memories,
	// docs/benchmarks.md). The bytes written are the same
	// (TestSavedFormatGolden).
	var dict []byte
	var blocks []int
	for _, name := range names {
		docs, sumLen, err := src.field(name)
		if err != nil {
			return err
		}
		dir = binary.AppendUvarint(dir, uint64(len(name)))
		dir = append(dir, name...)
		dir = binary.AppendUvarint(dir, uint64(docs))
		dir = binary.AppendUvarint(dir, sumLen)
		// Postings of every term first, then the dictionary blocks.
		dict, blocks = dict[:0], blocks[:0]
		n := 0
		for {
			t, tp, ok, err := src.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			var df int
			var r blockRef
			if tp.raw != nil {
				df = tp.rawDF
				r, err = putCRC(tp.raw, tp.rawCRC)
			} else {
				post, df = pw.appendPostings(post[:0], tp.prefix, tp.p, tp.lens, tp.dead)
				if df == 0 {
					continue
				}
				r, err = put(post)
			}
			if err != nil {
				return err
			}
			if n%savedTermsPerBlock == 0 {
				blocks = append(blocks, len(dict))
			}
			n++
			dict = binary.AppendUvarint(dict, uint64(len(t)))
			dict = append(dict, t...)
			dict = binary.AppendUvarint(dict, uint64(df))
			dict = binary.AppendUvarint(dict, uint64(tp.maxTF))
			dict = binary.AppendUvarint(dict, uint64(tp.minLen))
			dict = appendRef(dict, r)
		}
		dir = binary.AppendUvarint(dir, uint64(len(blocks)))
		for b, start := range blocks {
			end := len(dict)
			if b+1 < len(blocks) {
				end = blocks[b+1]
			}
			buf = binary.AppendUvarint(buf[:0], uint64(min(savedTermsPerBlock, n-b*savedTermsPerBlock)))
			buf = append(buf, dict[start:end]...)
			r, err := put(buf)
			if err != nil {
				return err
			}
			l, k := binary.Uvarint(dict[start:]) // the block's first term
			dir = append(dir, dict[start:start+k+int(l)]...)
			dir = appendRef(dir, r)
		}
	}
	dirOff := uint64(w.n)
	if _, err := w.Write(dir); err != nil {
		return err
	}
	var foot []byte
	foot = binary.LittleEndian.AppendUint64(foot, dirOff)
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(dir)))
	foot = binary.LittleEndian.AppendUint32(foot, crc32.ChecksumIEEE(dir))
	foot = append(foot, savedMagic...)
	_, err = w.Write(foot)
	return err
}

// postingsWriter encodes postings regions (appendPostings), its buffers
// reused from one term to the next.
type postingsWriter struct {
	data []byte
	last []uint32
	ends []int
}

// appendPostings appends p's postings region (the package comment's
// layout) to b, leaving out documents dead reports (dead nil: none), and
// returns it and the number of postings written. A prefix's blocks come
// first, copied as they are (nil: none); p's postings then follow its
// last document, which they must all be above.
func (w *postingsWriter) appendPostings(b []byte, prefix *savedPrefix, p *postings, lens []uint32, dead func(uint32) bool) ([]byte, int) {
	// The blocks first, to know their lengths for the skip table.
	w.data, w.last, w.ends = w.data[:0], w.last[:0], w.ends[:0]
	prev, n := uint32(0), 0
	if prefix != nil && len(prefix.last) > 0 {
		w.data = append(w.data, prefix.data...)
		w.last = append(w.last, prefix.last...)
		for _, e := range prefix.end {
			w.ends = append(w.ends, int(e))
		}
		prev, n = prefix.last[len(prefix.last)-1], prefix.n
	}
	for j, d := range p.docs {
		if dead != nil && dead(d) {
			continue
		}
		w.data = binary.AppendUvarint(w.data, uint64(d-prev))
		w.data = binary.AppendUvarint(w.data, uint64(p.tfs[j]))
		w.data = binary.AppendUvarint(w.data, uint64(lens[d]))
		prev = d
		if n%savedPostingsPerBlock == 0 {
			w.last, w.ends = append(w.last, 0), append(w.ends, 0)
		}
		w.last[len(w.last)-1], w.ends[len(w.ends)-1] = d, len(w.data)
		n++
	}
	b = binary.AppendUvarint(b, uint64(len(w.last)))
	prevLast, prevEnd := uint32(0), 0
	for j, last := range w.last {
		b = binary.AppendUvarint(b, uint64(last-prevLast))
		b = binary.AppendUvarint(b, uint64(w.ends[j]-prevEnd))
		prevLast, prevEnd = last, w.ends[j]
	}
	return append(b, w.data...), n
}

// savedPrefix is the first blocks of a saved postings region, copied as
// they are by appendPostings: their bytes, and per block its last
// document and its end in data (savedList's). Every block but the last
// of a region holds savedPostingsPerBlock postings, so a prefix that
// postings follow holds only full blocks.
type savedPrefix struct {
	data []byte
	last []uint32
	end  []uint32
	n    int // postings in the blocks
}

// Saved is an open saved index (WriteSaved): its directory read and
// checked, its blocks read (pread) only when a search needs them. Not
// safe for concurrent use.
type Saved struct {
	f      *os.File
	buf    []byte // reused for dictionary and postings blocks, decoded at once
	size   uint64
	tag    []byte
	nDocs  uint64
	ids    []blockRef
	fields map[string]*savedField
	idMemo map[uint64][]byte // id blocks read and checked, by block number
}

// savedField is one field of a Saved: Index statistics and dictionary
// blocks' references.
type savedField struct {
	docs   uint64
	sumLen uint64
	first  [][]byte // first term of each dictionary block
	blocks []blockRef
}

// OpenSaved opens the saved index at path, reading its footer and
// directory (two reads) and checking the directory's CRC-32. It returns
// the error of opening or reading the file, or ErrSavedCorrupt.
func OpenSaved(path string) (*Saved, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	s, err := openSaved(f)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return s, nil
}

func openSaved(f *os.File) (*Saved, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := uint64(st.Size())
	if size < uint64(len(savedMagic)+savedFooterLen) {
		return nil, fmt.Errorf("%w: %d bytes", ErrSavedCorrupt, size)
	}
	foot := make([]byte, savedFooterLen)
	if _, err := f.ReadAt(foot, int64(size)-int64(savedFooterLen)); err != nil {
		return nil, err
	}
	if string(foot[16:]) != savedMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrSavedCorrupt)
	}
	s := &Saved{f: f, size: size, fields: map[string]*savedField{}, idMemo: map[uint64][]byte{}}
	dirRef := blockRef{off: binary.LittleEndian.Uint64(foot), n: uint64(binary.LittleEndian.Uint32(foot[8:])), crc: binary.LittleEndian.Uint32(foot[12:])}
	dir, err := s.block(dirRef)
	if err != nil {
		return nil, err
	}
	d := decoder{b: dir}
	s.tag = bytes.Clone(d.bytes()) // valid after Close
	s.nDocs = d.uvarint()
	nID := d.uvarint()
	if nID > uint64(len(dir)) {
		return nil, fmt.Errorf("%w: directory", ErrSavedCorrupt)
	}
	s.ids = make([]blockRef, nID)
	for i := range s.ids {
		s.ids[i] = d.ref()
	}
	nf := d.uvarint()
	for i := uint64(0); i < nf && d.err == nil; i++ {
		name := string(d.bytes())
		sf := &savedField{docs: d.uvarint(), sumLen: d.uvarint()}
		nb := d.uvarint()
		if nb > uint64(len(dir)) {
			return nil, fmt.Errorf("%w: directory", ErrSavedCorrupt)
		}
		sf.first = make([][]byte, nb)
		sf.blocks = make([]blockRef, nb)
		for j := range sf.blocks {
			sf.first[j] = d.bytes()
			sf.blocks[j] = d.ref()
		}
		s.fields[name] = sf
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, fmt.Errorf("%w: directory", ErrSavedCorrupt)
	}
	return s, nil
}

// Close closes the file.
func (s *Saved) Close() error { return s.f.Close() }

// Tag returns the tag the index was saved with (WriteSaved).
func (s *Saved) Tag() []byte { return s.tag }

// scratchBlock is block read into s.buf, valid until the next call: for
// a block decoded at once.
func (s *Saved) scratchBlock(r blockRef) ([]byte, error) {
	if r.off > s.size || r.n > s.size-r.off {
		return nil, fmt.Errorf("%w: block [%d,+%d) past the end", ErrSavedCorrupt, r.off, r.n)
	}
	if uint64(cap(s.buf)) < r.n {
		s.buf = make([]byte, r.n)
	}
	b := s.buf[:r.n]
	if _, err := s.f.ReadAt(b, int64(r.off)); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(b) != r.crc {
		return nil, fmt.Errorf("%w: CRC-32 of block at %d", ErrSavedCorrupt, r.off)
	}
	return b, nil
}

// readInto reads the block r into b (len r.n) and checks its CRC-32.
func (s *Saved) readInto(r blockRef, b []byte) ([]byte, error) {
	if r.off > s.size || r.n > s.size-r.off {
		return nil, fmt.Errorf("%w: block [%d,+%d) past the end", ErrSavedCorrupt, r.off, r.n)
	}
	if _, err := s.f.ReadAt(b, int64(r.off)); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(b) != r.crc {
		return nil, fmt.Errorf("%w: CRC-32 of block at %d", ErrSavedCorrupt, r.off)
	}
	return b, nil
}

// block reads the block r into fresh memory and checks its CRC-32.
func (s *Saved) block(r blockRef) ([]byte, error) {
	if r.off > s.size || r.n > s.size-r.off {
		return nil, fmt.Errorf("%w: block [%d,+%d) past the end", ErrSavedCorrupt, r.off, r.n)
	}
	b := make([]byte, r.n)
	if _, err := s.f.ReadAt(b, int64(r.off)); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(b) != r.crc {
		return nil, fmt.Errorf("%w: CRC-32 of block at %d", ErrSavedCorrupt, r.off)
	}
	return b, nil
}

// decoder reads uvarints and length-prefixed bytes from b; the first
// malformed one sets err (and every later read returns zero values).
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = ErrSavedCorrupt
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = ErrSavedCorrupt
		d.b = nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// entry decodes a dictionary entry: the term (a view of d's bytes) and
// its statistics and postings region, as writeSaved encodes them.
func (d *decoder) entry() ([]byte, savedTerm) {
	t := d.bytes()
	return t, savedTerm{df: d.uvarint(), maxTF: d.uvarint(), minLen: d.uvarint(), post: d.ref()}
}

func (d *decoder) ref() blockRef {
	r := blockRef{off: d.uvarint(), n: d.uvarint()}
	if d.err != nil || len(d.b) < 4 {
		d.err = ErrSavedCorrupt
		d.b = nil
		return blockRef{}
	}
	r.crc = binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return r
}

// savedTerm is a dictionary entry.
type savedTerm struct {
	df, maxTF, minLen uint64
	post              blockRef
}

// lookup returns field f's entry of term, and false when f has no such
// term.
func (s *Saved) lookup(f *savedField, term string) (savedTerm, bool, error) {
	// The last block whose first term is ≤ term.
	i := sort.Search(len(f.first), func(i int) bool { return string(f.first[i]) > term }) - 1
	if i < 0 {
		return savedTerm{}, false, nil
	}
	b, err := s.scratchBlock(f.blocks[i])
	if err != nil {
		return savedTerm{}, false, err
	}
	d := decoder{b: b}
	n := d.uvarint()
	for j := uint64(0); j < n && d.err == nil; j++ {
		t, e := d.entry()
		if d.err == nil && string(t) == term {
			return e, true, nil
		}
	}
	if d.err != nil {
		return savedTerm{}, false, fmt.Errorf("%w: dictionary block at %d", ErrSavedCorrupt, f.blocks[i].off)
	}
	return savedTerm{}, false, nil
}

// savedList is one term's postings region during a search (the package
// comment's layout): its skip table decoded, its blocks decoded one at a
// time into buf, which the cursor's docs, tfs and plens are cut from.
type savedList struct {
	data  []byte   // the blocks
	last  []uint32 // block -> its last document number
	end   []uint32 // block -> its end in data
	df    uint64
	nDocs uint64
	blk   int // the block in buf; −1 before the first
	buf   [3 * savedPostingsPerBlock]uint32
	err   error // the first malformed block
}

// openList checks e's region b (read and CRC-checked by the caller) and
// decodes its skip table.
func (s *Saved) openList(e savedTerm, b []byte) (*savedList, error) {
	l := &savedList{}
	return l, s.openListInto(l, e, b)
}

// openListInto is openList into l, whose memory it reuses (a merge
// opens a list per term: Overlay.WriteSaved).
func (s *Saved) openListInto(l *savedList, e savedTerm, b []byte) error {
	bad := func() error { return fmt.Errorf("%w: postings at %d", ErrSavedCorrupt, e.post.off) }
	d := decoder{b: b}
	nb := d.uvarint()
	if d.err != nil || nb != (e.df+savedPostingsPerBlock-1)/savedPostingsPerBlock || nb > uint64(len(b)) {
		return bad()
	}
	l.df, l.nDocs, l.blk, l.err = e.df, s.nDocs, -1, nil
	l.last, l.end = slices.Grow(l.last[:0], int(nb))[:nb], slices.Grow(l.end[:0], int(nb))[:nb]
	last, end := uint64(0), uint64(0)
	for j := range l.last {
		last += d.uvarint()
		end += d.uvarint()
		if last >= s.nDocs || end > uint64(len(b)) {
			return bad()
		}
		l.last[j], l.end[j] = uint32(last), uint32(end)
	}
	if d.err != nil || end != uint64(len(d.b)) {
		return bad()
	}
	l.data = d.b
	return nil
}

// load decodes block j into c's docs, tfs and plens and sets c to its
// first posting; it returns false (c's slices empty) when j is past the
// last block or malformed (l.err).
func (l *savedList) load(c *cursor, j int) bool {
	l.blk = j
	c.docs, c.tfs, c.plens, c.i = nil, nil, nil, 0
	if j >= len(l.last) || l.err != nil {
		return false
	}
	n := savedPostingsPerBlock
	if j == len(l.last)-1 {
		n = int(l.df) - j*savedPostingsPerBlock
	}
	start, doc := uint32(0), uint64(0)
	if j > 0 {
		start, doc = l.end[j-1], uint64(l.last[j-1])
	}
	if start > l.end[j] {
		l.err = ErrSavedCorrupt
		return false
	}
	d := decoder{b: l.data[start:l.end[j]]}
	docs, tfs, lens := l.buf[:n:n], l.buf[n:2*n:2*n], l.buf[2*n:3*n:3*n]
	for i := range n {
		doc += d.uvarint()
		tf, ln := d.uvarint(), d.uvarint()
		if doc >= l.nDocs || tf > math.MaxUint32 || ln > math.MaxUint32 {
			d.err = ErrSavedCorrupt
		}
		docs[i], tfs[i], lens[i] = uint32(doc), uint32(tf), uint32(ln)
	}
	if d.err != nil || len(d.b) != 0 || doc != uint64(l.last[j]) {
		l.err = ErrSavedCorrupt
		return false
	}
	c.docs, c.tfs, c.plens = docs, tfs, lens
	c.cur = docs[0]
	return true
}

// skipTo loads the first block after the current one whose last document
// is ≥ d, without decoding the blocks before it, and returns false when
// there is none.
func (l *savedList) skipTo(c *cursor, d uint32) bool {
	lo := l.blk + 1
	j := lo + sort.Search(len(l.last)-lo, func(k int) bool { return l.last[lo+k] >= d })
	return l.load(c, j)
}

// postings decodes all of e's postings (for tests).
func (s *Saved) postings(e savedTerm) (docs, tfs, lens []uint32, err error) {
	b, err := s.scratchBlock(e.post)
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := s.openList(e, b)
	if err != nil {
		return nil, nil, nil, err
	}
	c := cursor{src: l}
	for c.at(0); c.cur != math.MaxUint32; c.at(c.i + 1) {
		docs, tfs, lens = append(docs, c.cur), append(tfs, c.tfs[c.i]), append(lens, c.plens[c.i])
	}
	if l.err != nil {
		return nil, nil, nil, fmt.Errorf("%w: postings at %d", l.err, e.post.off)
	}
	return docs, tfs, lens, nil
}

// id returns document number n's id, reading (and checking) its id
// block on first use and decoding only that entry.
func (s *Saved) id(n uint32) (string, error) {
	bi := uint64(n) / savedIDsPerBlock
	b, ok := s.idMemo[bi]
	if !ok {
		if bi >= uint64(len(s.ids)) {
			return "", fmt.Errorf("%w: document %d", ErrSavedCorrupt, n)
		}
		var err error
		if b, err = s.block(s.ids[bi]); err != nil {
			return "", err
		}
		s.idMemo[bi] = b
	}
	d := decoder{b: b}
	for range uint64(n) % savedIDsPerBlock {
		d.bytes()
	}
	id := d.bytes()
	if d.err != nil || len(id) == 0 {
		return "", fmt.Errorf("%w: document %d has no id", ErrSavedCorrupt, n)
	}
	return string(id), nil
}

// Search is Index.Search on the saved index: the same hits, scores (to
// the last bit) and order (ties by id) as the Index it was saved from
// gave at that time. It reads the dictionary block of each query term
// in each field, that term's postings, and the id blocks of the
// documents it ranks; it returns ErrSavedCorrupt (wrapped) when one of
// them fails its check, or the error of reading the file.
func (s *Saved) Search(clauses []Clause, k int, prune bool) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	order, merged := mergeClauses(clauses)
	type found struct {
		kk fieldTerm
		f  *savedField
		e  savedTerm
	}
	var terms []found
	total := uint64(0)
	for _, kk := range order {
		f := s.fields[kk.field]
		if f == nil || f.docs == 0 {
			continue
		}
		e, ok, err := s.lookup(f, kk.term)
		if err != nil {
			return nil, err
		}
		if !ok || e.df == 0 {
			continue
		}
		terms = append(terms, found{kk, f, e})
		total += e.post.n
	}
	// One buffer for every term's postings region, read whole (its
	// CRC-32 checked) and decoded a block at a time by the cursors.
	raw := make([]byte, total)
	var cs []cursor
	var lists []*savedList
	for _, t := range terms {
		kk, f, e := t.kk, t.f, t.e
		b, err := s.readInto(e.post, raw[:e.post.n:e.post.n])
		if err != nil {
			return nil, err
		}
		raw = raw[e.post.n:]
		l, err := s.openList(e, b)
		if err != nil {
			return nil, err
		}
		lists = append(lists, l)
		avg := float64(f.sumLen) / float64(f.docs)
		w := merged[kk] * Idf(e.df, f.docs)
		c := cursor{src: l, weight: w, avgLen: avg, slot: len(cs)}
		c.at(0)
		c.ub = TermScore(w, uint32(e.maxTF), uint32(e.minLen), avg)
		if w < 0 {
			c.ub = 0
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, nil
	}
	return s.topK(cs, k, prune, nil, lists, math.MaxUint32, nil)
}

// topK is topK over cs for a saved index: the ids of documents below
// base are read from s, those of the others are extra[d−base] (an
// Overlay's own documents); it returns the first error of a postings
// list of lists or of an id block.
func (s *Saved) topK(cs []cursor, k int, prune bool, dead func(uint32) bool, lists []*savedList, base uint32, extra []string) ([]Hit, error) {
	var idErr error
	hits := topK(cs, k, prune, dead, func(d uint32) string {
		if d >= base {
			return extra[d-base]
		}
		id, err := s.id(d)
		if err != nil && idErr == nil {
			idErr = err
		}
		return id
	})
	for _, l := range lists {
		if l.err != nil {
			return nil, fmt.Errorf("%w: a postings block", l.err)
		}
	}
	if idErr != nil {
		return nil, idErr
	}
	return hits, nil
}

// eachID calls fn with every document number and its id ("" for a
// number with no live document), in number order, reading each id block
// once; id is valid during the call. It returns fn's error, the error of
// reading, or ErrSavedCorrupt (wrapped) for a malformed id block or ids
// other in number than the saved documents.
func (s *Saved) eachID(fn func(n uint32, id []byte) error) error {
	n := uint32(0)
	for _, r := range s.ids {
		b, err := s.scratchBlock(r)
		if err != nil {
			return err
		}
		d := decoder{b: b}
		for len(d.b) > 0 && d.err == nil {
			id := d.bytes()
			if d.err != nil {
				break
			}
			if err := fn(n, id); err != nil {
				return err
			}
			n++
		}
		if d.err != nil {
			return fmt.Errorf("%w: id block at %d", ErrSavedCorrupt, r.off)
		}
	}
	if uint64(n) != s.nDocs {
		return fmt.Errorf("%w: %d ids for %d documents", ErrSavedCorrupt, n, s.nDocs)
	}
	return nil
}

// Load reads the whole saved index into an Index that ranks as the Index
// it was saved from did when saved (Search: the same hits, scores to the
// last bit, and order), and goes on from there as that Index would: its
// document numbers and tombstones (ids saved as ""), each field's
// statistics (N and total length, deleted documents included until a
// compaction, as saved) and every live posting with its term frequency
// and field length. What the saved form does not keep is taken as a
// Builder takes it: every document has every field (has), so a
// compaction after Load counts every live document in every field's N,
// as it counts the documents of gloss's memory text index (each has
// every field, empty or not). It reads every block once and returns
// ErrSavedCorrupt (wrapped) when one fails its check, or the error of
// reading the file.
func (s *Saved) Load() (*Index, error) {
	if s.nDocs > uint64(len(s.ids))*savedIDsPerBlock {
		return nil, fmt.Errorf("%w: %d documents in %d id blocks", ErrSavedCorrupt, s.nDocs, len(s.ids))
	}
	ids := make([]string, 0, s.nDocs)
	err := s.eachID(func(_ uint32, id []byte) error {
		ids = append(ids, string(id))
		return nil
	})
	if err != nil {
		return nil, err
	}
	x := New()
	x.ids = ids
	for n, id := range ids {
		if id == "" {
			x.dead++
		} else {
			x.num[id] = uint32(n)
		}
	}
	var raw []byte
	for name, sf := range s.fields {
		f := &field{terms: map[string]*postings{}, lens: make([]uint32, len(ids)), has: make([]bool, len(ids)),
			docs: int(sf.docs), sumLen: sf.sumLen}
		for i := range f.has {
			f.has[i] = true
		}
		x.fields[name] = f
		for _, br := range sf.blocks {
			b, err := s.block(br)
			if err != nil {
				return nil, err
			}
			d := decoder{b: b}
			nt := d.uvarint()
			for j := uint64(0); j < nt && d.err == nil; j++ {
				t, e := d.entry()
				if d.err != nil {
					break
				}
				term := string(t)
				if uint64(cap(raw)) < e.post.n {
					raw = make([]byte, e.post.n)
				}
				pb, err := s.readInto(e.post, raw[:e.post.n])
				if err != nil {
					return nil, err
				}
				l, err := s.openList(e, pb)
				if err != nil {
					return nil, err
				}
				p := &postings{docs: make([]uint32, 0, e.df), tfs: make([]uint32, 0, e.df),
					maxTF: uint32(min(e.maxTF, math.MaxUint32)), minLen: uint32(min(e.minLen, math.MaxUint32))}
				c := cursor{src: l}
				for c.at(0); c.cur != math.MaxUint32; c.at(c.i + 1) {
					ln := c.plens[c.i]
					p.docs, p.tfs = append(p.docs, c.cur), append(p.tfs, c.tfs[c.i])
					f.lens[c.cur] = ln
					f.maxLen = max(f.maxLen, ln)
				}
				if l.err != nil {
					return nil, fmt.Errorf("%w: postings at %d", l.err, e.post.off)
				}
				if len(p.docs) > 0 {
					f.terms[term] = p
				}
			}
			if d.err != nil || len(d.b) != 0 {
				return nil, fmt.Errorf("%w: dictionary block at %d", ErrSavedCorrupt, br.off)
			}
		}
	}
	return x, nil
}
