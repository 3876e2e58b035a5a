package index

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/cockroachdb/pebble/v2"
)

// The token keyspace: the normalized token stream of each indexed file, so
// that a span anchor on a file unchanged since `gloss index` needs no
// parse (Store.LoadTokens).
//
//	z\0<path> → token record (encodeTokens)
const prefixTokens = "z"

// TokensVersion is the layout of the token records this gloss writes
// (FileRecord.Tokens). A file whose record names another version (0: a
// store of an older gloss, which wrote none) is parsed again by the next
// index run even when its content is unchanged, so every indexed file
// gets a token record once.
const TokensVersion = 1

// encodeTokens returns the token record of a file of content hash hash
// (hex SHA-256, HashBytes) and compact token stream spans:
//
//	version (1 byte, TokensVersion) · SHA-256 of the content (32 bytes) ·
//	uvarint token count · per token uvarint(start − previous end),
//	uvarint(end − start)
//
// Offsets are bytes; the first token's gap is from offset 0. Tokens are
// short and separated by little whitespace, so a token costs 2–3 bytes
// instead of the 8 of tokenSpan.
func encodeTokens(hash string, spans []tokenSpan) ([]byte, error) {
	sum, err := hex.DecodeString(hash)
	if err != nil || len(sum) != 32 {
		return nil, fmt.Errorf("token record: content hash %q is not a hex SHA-256", hash)
	}
	out := make([]byte, 0, 1+32+binary.MaxVarintLen64+len(spans)*3)
	out = append(out, TokensVersion)
	out = append(out, sum...)
	out = binary.AppendUvarint(out, uint64(len(spans)))
	prev := int32(0)
	for _, s := range spans {
		if s.start < prev || s.end < s.start {
			return nil, fmt.Errorf("token record: tokens out of order at byte %d", s.start)
		}
		out = binary.AppendUvarint(out, uint64(s.start-prev))
		out = binary.AppendUvarint(out, uint64(s.end-s.start))
		prev = s.end
	}
	return out, nil
}

var errTokenRecord = errors.New("corrupt token record")

// packedStride is how many tokens of a packedTokens lie between two of
// its marks: a window is decoded from the mark before it, at most
// packedStride-1 tokens early.
const packedStride = 64

// packedTokens is the token stream of a token record (encodeTokens) kept
// as the record stores it, a uvarint gap and length per token, with a
// mark every packedStride tokens: a File built from its stored record
// (LoadTokens) holds 2–3 bytes per token instead of the 8 of tokenSpan,
// and a window (File.Tokens) decodes only the tokens from the mark
// before it. Offsets are bytes of File.Src.
type packedTokens struct {
	// data are the record's gap and length pairs (after the count).
	data []byte
	// marks[k] is where token k·packedStride starts in data, and the end
	// of the token before it (0 for the first).
	marks []packedMark
}

// packedMark is one mark of a packedTokens: off, the byte offset in data
// of a token's gap; prev, the end offset (bytes of File.Src) of the token
// before it, from which the gap counts.
type packedMark struct{ off, prev int32 }

// decodeTokens checks a token record (encodeTokens) of a file of size
// bytes whose content hash (hex) is hash, and returns its stream packed
// (a copy of the record's pairs: data may be reused). ok is false when
// the record is of another version or another content; err reports a
// corrupt record (a token out of order or past size, trailing bytes).
func decodeTokens(data []byte, hash string, size int) (p *packedTokens, ok bool, err error) {
	if len(data) < 33 || data[0] != TokensVersion {
		return nil, false, nil
	}
	if hex.EncodeToString(data[1:33]) != hash {
		return nil, false, nil
	}
	data = data[33:]
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(size) {
		return nil, false, errTokenRecord
	}
	data = data[k:]
	p = &packedTokens{marks: make([]packedMark, 0, (n+packedStride-1)/packedStride)}
	off, prev := 0, uint64(0)
	for i := uint64(0); i < n; i++ {
		if i%packedStride == 0 {
			p.marks = append(p.marks, packedMark{int32(off), int32(prev)})
		}
		gap, k1 := binary.Uvarint(data[off:])
		if k1 <= 0 {
			return nil, false, errTokenRecord
		}
		l, k2 := binary.Uvarint(data[off+k1:])
		if k2 <= 0 {
			return nil, false, errTokenRecord
		}
		off += k1 + k2
		start := prev + gap
		end := start + l
		if end > uint64(size) || end < start {
			return nil, false, errTokenRecord
		}
		prev = end
	}
	if off != len(data) {
		return nil, false, errTokenRecord
	}
	p.data = append([]byte(nil), data...)
	return p, true, nil
}

// window appends to buf the tokens of p that end after start and begin
// before end (byte offsets), in order, and returns buf: the part of the
// stream streamRanges reads for the window [start, end). The record was
// checked by decodeTokens.
func (p *packedTokens) window(buf []tokenSpan, start, end int) []tokenSpan {
	// Ends never decrease (a token starts at or after the end of the one
	// before), so every token before the last mark whose previous end is
	// at most start ends at or before start.
	k := sort.Search(len(p.marks), func(k int) bool { return int(p.marks[k].prev) > start }) - 1
	if k < 0 {
		return buf
	}
	off, prev := int(p.marks[k].off), int(p.marks[k].prev)
	for off < len(p.data) {
		gap, k1 := binary.Uvarint(p.data[off:])
		l, k2 := binary.Uvarint(p.data[off+k1:])
		off += k1 + k2
		s := prev + int(gap)
		e := s + int(l)
		prev = e
		if s >= end {
			break
		}
		if e > start {
			buf = append(buf, tokenSpan{int32(s), int32(e)})
		}
	}
	return buf
}

// tokenRecord returns the token record (encodeTokens) of a parsed File
// with its syntax trees, for Store writes by the indexer; nil for files
// of 2 GiB or more (offsets are 32-bit).
func (f *File) tokenRecord() ([]byte, error) {
	if len(f.Src) >= 1<<31 {
		return nil, nil
	}
	spans := f.streamSpans(0, len(f.Src))
	if spans == nil {
		spans = f.compactTokens()
	}
	return encodeTokens(f.SrcHash(), spans)
}

// LoadTokens gives f, a File built from its stored record (RecordFile),
// the token stream stored for its content at the last index run, so that
// Tokens answers as it does on a parse of the same content (the stream
// was taken from that parse). It reports whether f has tokens now: false
// when no token record of f's content (SrcHash) and of TokensVersion is
// stored (the file was indexed by an older gloss, or changed since); the
// caller then parses. A File that already has tokens is left as it is.
// Errors reading the store count as no record.
func (s *Store) LoadTokens(f *File) (ok bool) {
	if f == nil {
		return false
	}
	if f.spans != nil || f.packed != nil {
		return true
	}
	defer func() {
		if recover() != nil { // a closed store: parse instead
			ok = false
		}
	}()
	val, closer, err := s.pdb().Get(Key(prefixTokens, f.Path))
	if err != nil {
		return false
	}
	defer closer.Close()
	p, ok, err := decodeTokens(val, f.SrcHash(), len(f.Src))
	if err != nil || !ok {
		return false
	}
	f.packed = p
	return true
}

// putTokens stores the token record data of path in b (nothing when data
// is nil: the record already stored stays).
func putTokens(b *pebble.Batch, path string, data []byte) error {
	if data == nil {
		return nil
	}
	return b.Set(Key(prefixTokens, path), data, nil)
}

// deleteTokens removes the token record of path from b.
func deleteTokens(b *pebble.Batch, path string) {
	_ = b.Delete(Key(prefixTokens, path), nil)
}
