// Package binrec holds the primitives of the binary record layout in
// which gloss stores memory summaries (memory's encodeSummary, index
// keyspace v): strings and byte slices as a uvarint length followed by
// their bytes, ints as varints and uvarints (encoding/binary), bools as
// one byte, times as time.Time.MarshalBinary's bytes with a uvarint
// length. Decoding is without reflection and, given the record as a
// string too, without a copy per string: `gloss check` decodes 100,000
// summaries with it (issue #12).
package binrec

import (
	"encoding/binary"
	"errors"
	"time"
)

// ErrMalformed reports a truncated or malformed binary record.
var ErrMalformed = errors.New("malformed summary record")

// AppendString appends s as its length (uvarint) and its bytes.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendBool appends v as one byte, 1 for true and 0 for false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// AppendTimes appends each time as time.Time.MarshalBinary's bytes with a
// uvarint length (AppendString); it fails with MarshalBinary's error on a
// time MarshalBinary refuses (a zone offset that is not whole minutes).
func AppendTimes(b []byte, ts ...time.Time) ([]byte, error) {
	for _, t := range ts {
		tb, err := t.MarshalBinary()
		if err != nil {
			return nil, err
		}
		b = AppendString(b, string(tb))
	}
	return b, nil
}

// Decoder reads the layout the Append functions write, field by field.
// The first error sticks (Err) and later reads return zero values, so a
// caller reads a whole record and checks once. The zero Decoder reads
// nothing.
type Decoder struct {
	buf []byte
	// whole, when set, is a string of the bytes buf started with: Str
	// returns its substrings rather than copies.
	whole string
	err   error
}

// NewDecoder returns a Decoder of buf. whole is "" (Str copies each
// string) or a string of exactly buf's bytes: Str then returns
// substrings of whole, one allocation per record (or per block of
// records) instead of one per string, and the strings keep whole alive.
func NewDecoder(buf []byte, whole string) Decoder {
	d := Decoder{buf: buf}
	if len(whole) == len(buf) {
		d.whole = whole
	}
	return d
}

// Err returns the first error met, ErrMalformed or a time's
// UnmarshalBinary error; nil while every read succeeded.
func (d *Decoder) Err() error { return d.err }

// Done returns Err, or ErrMalformed when bytes are left after the last
// read: the end of a record that must be read whole.
func (d *Decoder) Done() error {
	if d.err == nil && len(d.buf) != 0 {
		d.err = ErrMalformed
	}
	return d.err
}

func (d *Decoder) setErr(err error) {
	if d.err == nil && err != nil {
		d.err = err
	}
}

// Uvarint reads an unsigned varint (binary.AppendUvarint).
func (d *Decoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.err = ErrMalformed
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// Count reads a slice length (a uvarint), bounded by the bytes left
// (every element takes at least one byte), so a damaged record cannot
// make its reader allocate much.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.buf)) {
		d.setErr(ErrMalformed)
		return 0
	}
	return int(n)
}

// Bytes reads what AppendString wrote, as a slice of the decoder's buffer
// (not a copy).
func (d *Decoder) Bytes() []byte {
	n := d.Count()
	if d.err != nil {
		return nil
	}
	out := d.buf[:n]
	d.buf = d.buf[n:]
	return out
}

// Str reads what AppendString wrote: a substring of whole (NewDecoder)
// when set, else a copy.
func (d *Decoder) Str() string {
	b := d.Bytes()
	if d.whole == "" || len(b) == 0 {
		return string(b)
	}
	end := len(d.whole) - len(d.buf)
	return d.whole[end-len(b) : end]
}

// Int reads a signed varint (binary.AppendVarint) as an int.
func (d *Decoder) Int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.err = ErrMalformed
		return 0
	}
	d.buf = d.buf[n:]
	return int(v)
}

// Bool reads what AppendBool wrote: true for 1, false for any other byte.
func (d *Decoder) Bool() bool {
	if d.err != nil || len(d.buf) == 0 {
		d.setErr(ErrMalformed)
		return false
	}
	v := d.buf[0]
	d.buf = d.buf[1:]
	return v == 1
}

// Times reads what AppendTimes wrote into ps, in order.
func (d *Decoder) Times(ps ...*time.Time) {
	for _, p := range ps {
		if raw := d.Bytes(); d.err == nil {
			d.setErr(p.UnmarshalBinary(raw))
		}
	}
}
